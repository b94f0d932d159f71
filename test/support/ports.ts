import * as fs from 'fs'
import * as net from 'net'
import * as os from 'os'
import * as path from 'path'

/**
 * Ports for the processes a test starts: below the OS's ephemeral range, where no outgoing
 * connection and no listen on port 0 (by us or by a process we start) takes one meanwhile (a port
 * handed out a minute before the launcher's anvils listen on it was found taken by such traffic).
 * A port is claimed for the rest of the run, so that no other test, in this process or in another
 * parallel worker, is handed the same one between our check and the process's own listen. The
 * claims live in a directory of the run (one empty file per port, created exclusively), made by
 * mocha's global setup below in the main process and inherited by the workers through
 * TEST_PORTS_DIR; a process without it (mocha run without this file's require) claims in memory.
 */
const DIR_VARIABLE = 'TEST_PORTS_DIR'

const claimedHere = new Set<number>()
let runDir: string | undefined

/** The lowest port the OS hands to outgoing connections and to listens on port 0 (Linux's default otherwise). */
function ephemeralLow(): number {
    try {
        return Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768
    } catch {
        return 32768
    }
}

/** Candidates from 10000 up to the ephemeral range (below 10000 are services' usual defaults). */
const LOWEST = 10_000
const HIGHEST = ephemeralLow() - 1

function listensFree(port: number): Promise<boolean> {
    return new Promise((resolve) => {
        const server = net.createServer()
        server.unref()
        server.once('error', () => resolve(false))
        server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
    })
}

function claim(port: number): boolean {
    if (claimedHere.has(port)) return false
    const dir = process.env[DIR_VARIABLE]
    if (dir) {
        try {
            fs.writeFileSync(path.join(dir, String(port)), '', { flag: 'wx' })
        } catch (err) {
            if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false
            throw err
        }
    }
    claimedHere.add(port)
    return true
}

function unclaim(port: number): void {
    claimedHere.delete(port)
    const dir = process.env[DIR_VARIABLE]
    if (dir) fs.rmSync(path.join(dir, String(port)), { force: true })
}

/** A TCP port free on 127.0.0.1 a moment ago, outside the ephemeral range, and handed to no one else in this test run. */
export async function freePort(): Promise<number> {
    if (HIGHEST < LOWEST) throw new Error(`the ephemeral port range starts at ${HIGHEST + 1}: no room below it for test ports`)
    for (let attempt = 0; attempt < 1000; attempt++) {
        const port = LOWEST + Math.floor(Math.random() * (HIGHEST - LOWEST + 1))
        // Claimed first, so that two workers never check the same port at once; a taken one is let go.
        if (!claim(port)) continue
        if (await listensFree(port)) return port
        unclaim(port)
    }
    throw new Error('no unclaimed free port after 1000 tries')
}

export function mochaGlobalSetup(): void {
    if (process.env[DIR_VARIABLE]) return
    runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'test-ports-'))
    process.env[DIR_VARIABLE] = runDir
}

export function mochaGlobalTeardown(): void {
    if (!runDir) return
    fs.rmSync(runDir, { recursive: true, force: true })
    delete process.env[DIR_VARIABLE]
    runDir = undefined
}
