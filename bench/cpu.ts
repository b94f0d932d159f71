import * as fs from 'fs'
import * as path from 'path'

/**
 * CPU time used by process trees on this machine, from /proc (Linux): where a benchmark's time
 * goes between the load generator, the service and Postgres, which share the cores.
 */

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100

/** [ppid, own ticks, ticks of children already waited for], or undefined when the process is gone. */
function stat(pid: number): [number, number, number] | undefined {
    try {
        const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
        // Fields after the command name (which may hold spaces) start after its closing parenthesis.
        const f = text.slice(text.lastIndexOf(')') + 2).split(' ')
        return [Number(f[1]), Number(f[11]) + Number(f[12]), Number(f[13]) + Number(f[14])]
    } catch {
        return undefined
    }
}

/**
 * Milliseconds of CPU used so far by a process and all its descendants, those that ended included
 * (once their parent has reaped them, as Postgres does its backends).
 */
export function treeCpuMs(root: number): number {
    const all = new Map<number, [number, number, number]>()
    for (const entry of fs.readdirSync('/proc')) {
        const pid = Number(entry)
        const s = Number.isInteger(pid) ? stat(pid) : undefined
        if (s) all.set(pid, s)
    }
    let ticks = 0
    const visit = (pid: number) => {
        const s = all.get(pid)
        if (!s) return
        ticks += s[1] + s[2]
        for (const [child, c] of all) if (c[0] === pid) visit(child)
    }
    visit(root)
    return (ticks * 1000) / TICKS_PER_SECOND
}

/** Milliseconds of CPU used by this process's children that have ended (and been waited for). */
export function endedChildrenCpuMs(): number {
    const s = stat(process.pid)
    return s ? (s[2] * 1000) / TICKS_PER_SECOND : 0
}

/** Milliseconds of CPU used so far by this process (user and system). */
export function ownCpuMs(): number {
    const { user, system } = process.cpuUsage()
    return (user + system) / 1000
}

/** The postmaster's pid, from the postmaster.pid file Postgres keeps in its data directory (somewhere under `dir`). */
export function postmasterPid(dir: string): number {
    const file = (fs.readdirSync(dir, { recursive: true }) as string[]).find((f) => path.basename(f) === 'postmaster.pid')
    if (!file) throw new Error(`no postmaster.pid under ${dir}`)
    return Number(fs.readFileSync(path.join(dir, file), 'utf8').split('\n')[0])
}
