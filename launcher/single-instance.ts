import * as fs from 'fs'
import * as path from 'path'

/**
 * One `npm start` per data directory, and none building over the lib/ a launcher runs from:
 * docs/devnet.md#one-stack-per-data-directory
 */

const LOCK_FILE = 'launcher.pid'

export type Claim = { release(): void } | { heldBy: number }

/**
 * Claims `dir` for this process by creating its pid file exclusively. A file left by a launcher
 * that is gone (killed, or its pid now another program's) is taken over.
 */
export function claimDir(dir: string, pid = process.pid): Claim {
    fs.mkdirSync(dir, { recursive: true })
    const file = path.join(dir, LOCK_FILE)
    for (let attempt = 0; attempt < 2; attempt++) {
        try {
            fs.writeFileSync(file, `${pid}\n`, { flag: 'wx' })
            return { release: () => releaseIfOurs(file, pid) }
        } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
        }
        const holder = holderOf(dir)
        if (holder !== undefined) return { heldBy: holder }
        fs.rmSync(file, { force: true })
    }
    // Another launcher took the file between our removal and our write.
    return { heldBy: Number(readOrEmpty(file).trim()) }
}

/** The launcher holding `dir`, if one does and is alive (read by `npm start`'s build before it deletes lib/). */
export function holderOf(dir: string): number | undefined {
    const holder = Number(readOrEmpty(path.join(dir, LOCK_FILE)).trim())
    return holder > 0 && isLauncher(holder) ? holder : undefined
}

function releaseIfOurs(file: string, pid: number): void {
    if (Number(readOrEmpty(file).trim()) === pid) fs.rmSync(file, { force: true })
}

function readOrEmpty(file: string): string {
    try {
        return fs.readFileSync(file, 'utf8')
    } catch {
        return ''
    }
}

/** Whether `pid` is alive and, where /proc tells, running this launcher (a reused pid is not). */
function isLauncher(pid: number): boolean {
    try {
        process.kill(pid, 0)
    } catch {
        // ESRCH: gone; EPERM: another user's process, so not a launcher of ours.
        return false
    }
    try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(path.join('launcher', 'index.js'))
    } catch {
        return true
    }
}
