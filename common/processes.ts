import { ChildProcess, spawn, SpawnOptions } from 'child_process'
import { Logger } from './logger'

/**
 * Children started by this process. They are stopped when this process exits for any reason,
 * including an uncaught error, so a run never leaves a port taken.
 */
const children = new Set<ChildProcess>()
let hooksInstalled = false

function killAllSync(): void {
    for (const child of children) {
        if (child.exitCode === null && child.signalCode === null) {
            try {
                // Children are spawned as process-group leaders: signal the whole group.
                process.kill(-child.pid!, 'SIGKILL')
            } catch {
                child.kill('SIGKILL')
            }
        }
    }
}

function installHooks(): void {
    if (hooksInstalled) return
    hooksInstalled = true
    process.on('exit', killAllSync)
}

export interface Spawned {
    child: ChildProcess
    /** Resolves with the exit code (or signal) once the child has exited. */
    exited: Promise<number | string>
    /** SIGTERM, then SIGKILL after graceMs if still running. */
    stop(graceMs?: number): Promise<void>
    kill(signal?: NodeJS.Signals): void
}

export function spawnManaged(
    command: string,
    args: string[],
    options: Omit<SpawnOptions, 'stdio'> & { log?: Logger; name: string; stdio?: 'pipe' | 'inherit' | 'ignore' }
): Spawned {
    installHooks()
    const child = spawn(command, args, {
        ...options,
        detached: true,
        stdio: options.stdio === 'inherit' ? ['ignore', 'inherit', 'inherit'] : options.stdio === 'ignore' ? 'ignore' : ['ignore', 'pipe', 'pipe'],
    })
    children.add(child)
    const exited = new Promise<number | string>((resolve) => {
        child.once('exit', (code, signal) => {
            children.delete(child)
            resolve(code ?? signal ?? -1)
        })
        child.once('error', (err) => {
            options.log?.error({ err, name: options.name }, 'process failed to start')
            children.delete(child)
            resolve(-1)
        })
    })
    const signalGroup = (signal: NodeJS.Signals) => {
        if (child.exitCode !== null || child.signalCode !== null) return
        try {
            process.kill(-child.pid!, signal)
        } catch {
            child.kill(signal)
        }
    }
    return {
        child,
        exited,
        kill: (signal = 'SIGKILL') => signalGroup(signal),
        async stop(graceMs = 5000) {
            signalGroup('SIGTERM')
            const timer = setTimeout(() => signalGroup('SIGKILL'), graceMs)
            await exited
            clearTimeout(timer)
        },
    }
}

/** Polls until check() resolves truthy, or throws after timeoutMs with the last error. */
export async function waitFor<T>(
    what: string,
    check: () => Promise<T | undefined | false>,
    timeoutMs = 30_000,
    intervalMs = 100
): Promise<T> {
    const deadline = Date.now() + timeoutMs
    let lastError: unknown
    while (Date.now() < deadline) {
        try {
            const value = await check()
            if (value) return value
            lastError = undefined
        } catch (err) {
            lastError = err
        }
        await new Promise((r) => setTimeout(r, intervalMs))
    }
    throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`)
}
