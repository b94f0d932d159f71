import * as fs from 'fs'
import * as net from 'net'
import * as os from 'os'
import * as path from 'path'

/**
 * Ports for the processes a test starts. The OS picks a free one (listen on port 0), and the port
 * is then claimed for the rest of the run, so that no other test, in this process or in another
 * parallel worker, is handed the same port between our close and the process's own listen. The
 * claims live in a directory of the run (one empty file per port, created exclusively), made by
 * mocha's global setup below in the main process and inherited by the workers through
 * TEST_PORTS_DIR; a process without it (mocha run without this file's require) claims in memory.
 */
const DIR_VARIABLE = 'TEST_PORTS_DIR'

const claimedHere = new Set<number>()
let runDir: string | undefined

function osPort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const server = net.createServer()
        server.unref()
        server.on('error', reject)
        server.listen(0, '127.0.0.1', () => {
            const { port } = server.address() as net.AddressInfo
            server.close(() => resolve(port))
        })
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

/** A TCP port free on 127.0.0.1 a moment ago and handed to no one else in this test run. */
export async function freePort(): Promise<number> {
    for (let attempt = 0; attempt < 100; attempt++) {
        const port = await osPort()
        if (claim(port)) return port
    }
    throw new Error('no unclaimed free port after 100 tries')
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
