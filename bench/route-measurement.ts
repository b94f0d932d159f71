import { ApiProcess } from '../test/support/api'
import { autocannon } from './autocannon'
import { treeCpuMs } from './cpu'

/** One route under load, as the side-by-side history benchmarks (bench:defi, bench:advanced-filter) measure it. */

export interface Measurement {
    reqPerSec: number
    average: number
    p50: number
    p99: number
    /** CPU milliseconds per request of the api process and Postgres. */
    cpu: { api: number; postgres: number }
}

export interface Load {
    connections: number
    seconds: number
    warmupSeconds: number
}

/** A measurement as the benchmark reports print it. */
export function showMeasurement(m: Measurement): string {
    return `${Math.round(m.reqPerSec)} req/s, mean ${m.average.toFixed(2)} ms, p50 ${m.p50} ms, p99 ${m.p99} ms, CPU ms/req api ${m.cpu.api.toFixed(2)} postgres ${m.cpu.postgres.toFixed(2)}`
}

/** autocannon on `url` with the api's and Postgres's CPU per request; any non-2xx answer fails the run (it would measure an error page). */
export async function measureRoute(url: string, api: ApiProcess, postgresPid: number, load: Load): Promise<Measurement> {
    const apiPid = api.process.child.pid!
    const before = { api: treeCpuMs(apiPid), postgres: treeCpuMs(postgresPid) }
    const result = await autocannon({ url, connections: load.connections, duration: load.seconds, warmup: { connections: load.connections, duration: load.warmupSeconds } })
    if (result.non2xx + result.errors + result.timeouts > 0 || result.requests.total === 0) {
        throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts of ${result.requests.total}\n${api.output().slice(-2000)}`)
    }
    const requests = result.requests.average * (load.seconds + load.warmupSeconds)
    const m = {
        reqPerSec: result.requests.average,
        average: result.latency.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        cpu: { api: (treeCpuMs(apiPid) - before.api) / requests, postgres: (treeCpuMs(postgresPid) - before.postgres) / requests },
    }
    process.stdout.write(`  ${new URL(url).pathname}${new URL(url).search}: ${showMeasurement(m)}\n`)
    return m
}
