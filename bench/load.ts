import { Prng } from '../devnet/seed'
import { autocannon } from './autocannon'
import { ownCpuMs, treeCpuMs } from './cpu'

/** One autocannon measurement of an API route with the CPU it cost each process, for the API benchmarks: docs/testing.md#benchmarks */

export interface LoadShape {
    connections: number
    seconds: number
    warmupSeconds: number
}

export interface Measurement {
    route: string
    /** The page measured; 0 for a route without pages, -1 for pages picked at random. */
    page: number
    reqPerSec: number
    p50: number
    p99: number
    /** CPU milliseconds per request, warm-up included: `load` is the load generator, the others the named process trees. */
    cpu: Record<string, number>
}

/** What is requested: one URL, or paths under `base` picked at random (seeded) for every request. */
export type LoadTarget = string | { base: string; paths: string[]; seed: string }

/**
 * Drives `target` for the shape's warm-up and duration; `counted` names the process trees (by
 * root pid) whose CPU is charged per request. Any non-2xx answer, error or timeout fails the run.
 */
export async function measure(route: string, page: number, target: LoadTarget, shape: LoadShape, counted: Record<string, number>): Promise<Measurement> {
    const cpuNow = () => ({ load: ownCpuMs(), ...Object.fromEntries(Object.entries(counted).map(([name, pid]) => [name, treeCpuMs(pid)])) })
    const before = cpuNow()
    const options = typeof target === 'string' ? { url: target } : randomPaths(target)
    const result = await autocannon({
        ...options,
        connections: shape.connections,
        duration: shape.seconds,
        warmup: { connections: shape.connections, duration: shape.warmupSeconds },
    })
    const failed = result.non2xx + result.errors + result.timeouts
    if (failed > 0 || result.requests.total === 0) {
        throw new Error(`${route}${pageText(page)}: ${result.non2xx} non-2xx answers (${JSON.stringify(result.statusCodeStats)}), ${result.errors} errors, ` +
            `${result.timeouts} timeouts out of ${result.requests.total} requests; its figures would be meaningless (${options.url})`)
    }
    // autocannon's total leaves the warm-up out; its requests are counted at the measured rate.
    const requests = result.requests.average * (shape.seconds + shape.warmupSeconds)
    const after = cpuNow()
    const cpu = Object.fromEntries(Object.entries(before).map(([name, ms]) => [name, (after[name as keyof typeof after] - ms) / requests]))
    return { route, page, reqPerSec: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpu }
}

function randomPaths(target: { base: string; paths: string[]; seed: string }) {
    const random = new Prng(target.seed)
    const base = new URL(target.base)
    return {
        url: target.base,
        requests: [{ setupRequest: (request: { path?: string }) => ({ ...request, path: base.pathname + random.pick(target.paths) }) }],
    }
}

export function pageText(page: number): string {
    return page > 0 ? ` page ${page}` : page < 0 ? ' (random pages)' : ''
}

export function cpuText(m: Measurement): string {
    return `CPU ms/request: ${Object.entries(m.cpu).map(([name, ms]) => `${name} ${ms.toFixed(2)}`).join(', ')}`
}

export function measurementText(m: Measurement): string {
    return `${m.route}${pageText(m.page)}: ${Math.round(m.reqPerSec)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, ${cpuText(m)}`
}
