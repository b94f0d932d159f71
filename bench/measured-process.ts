import * as fs from 'fs'
import * as path from 'path'
import { Client } from 'pg'
import { spawnManaged } from '../common/processes'
import { endedChildrenCpuMs, treeCpuMs } from './cpu'

/** A benchmarked process run to completion, timed and charged with the CPU it and the servers used: docs/testing.md#benchmarks */

export interface Run {
    /** Epoch ms at spawn. */
    started: number
    ms: number
    peakRssMb: number
    output: string
    /** CPU seconds of the measured process (and its children), of Postgres and of anvil while it ran. */
    cpuSeconds: { script: number; postgres: number; anvil: number }
}

/** The processes besides the measured one whose CPU a run is charged with. */
export interface Servers {
    postgresPid: number
    anvilPid: number
}

export interface MeasuredOptions {
    env: Record<string, string>
    servers: Servers
    cwd?: string
    /**
     * For a process that keeps running once its work is done: the run ends when its output
     * satisfies this, and the process is then stopped. Without it the run ends when the process exits.
     */
    doneWhen?: (output: string) => boolean
    /** Upper bound on a `doneWhen` run; the process is stopped and the run fails after it. */
    timeoutMs?: number
}

/**
 * Runs a command, sampling its peak resident memory (VmHWM) from /proc, and charging it with the
 * CPU it, Postgres and anvil used meanwhile.
 */
export async function runMeasured(command: string, args: string[], options: MeasuredOptions): Promise<Run> {
    const { servers } = options
    const cpuBefore = { script: endedChildrenCpuMs(), postgres: treeCpuMs(servers.postgresPid), anvil: treeCpuMs(servers.anvilPid) }
    const started = Date.now()
    const name = path.basename(args[args.length - 1] ?? command)
    const proc = spawnManaged(command, args, { name, cwd: options.cwd, env: { ...process.env, ...options.env } })
    let output = ''
    proc.child.stdout?.on('data', (d) => (output += d.toString()))
    proc.child.stderr?.on('data', (d) => (output += d.toString()))
    let peakKb = 0
    const sampler = setInterval(() => {
        try {
            const status = fs.readFileSync(`/proc/${proc.child.pid}/status`, 'utf8')
            peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0))
        } catch {
            // exited between samples
        }
    }, 100)
    try {
        if (options.doneWhen) {
            const done = options.doneWhen
            // The process's CPU is read while it still runs (its tree, children included), at the moment its work is done.
            const scriptMs = await new Promise<number>((resolve, reject) => {
                const deadline = Date.now() + (options.timeoutMs ?? 3_600_000)
                const check = setInterval(() => {
                    if (done(output)) resolve(treeCpuMs(proc.child.pid!))
                    else if (proc.child.exitCode !== null || proc.child.signalCode !== null) reject(new Error(`${name} exited before it was done:\n${output.slice(-3000)}`))
                    else if (Date.now() > deadline) reject(new Error(`${name} was not done after ${options.timeoutMs} ms:\n${output.slice(-3000)}`))
                    else return
                    clearInterval(check)
                }, 50)
            })
            return finish(Date.now() - started, scriptMs)
        }
        const code = await proc.exited
        if (code !== 0) throw new Error(`${name} exited with ${code}:\n${output.slice(-3000)}`)
        return finish(Date.now() - started, endedChildrenCpuMs() - cpuBefore.script)
    } finally {
        clearInterval(sampler)
        // A doneWhen run's process is still running, or one that failed may be.
        await proc.stop()
    }

    function finish(ms: number, scriptMs: number): Run {
        const cpuSeconds = {
            script: scriptMs / 1000,
            postgres: (treeCpuMs(servers.postgresPid) - cpuBefore.postgres) / 1000,
            anvil: (treeCpuMs(servers.anvilPid) - cpuBefore.anvil) / 1000,
        }
        return { started, ms, peakRssMb: Math.round(peakKb / 1024), output, cpuSeconds }
    }
}

/** Rows in every table of a schema of the database at `databaseUrl` (the indexer's migrations table aside). */
export async function countRows(databaseUrl: string, schema = 'public'): Promise<number> {
    const db = new Client({ connectionString: databaseUrl })
    await db.connect()
    try {
        const tables = await db.query(`SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename <> 'migrations'`, [schema])
        let total = 0
        for (const { tablename } of tables.rows) {
            total += Number((await db.query(`SELECT count(*) AS n FROM "${schema}"."${tablename}"`)).rows[0].n)
        }
        return total
    } finally {
        await db.end()
    }
}
