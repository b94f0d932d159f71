import { expect } from 'chai'
import { execFile } from 'child_process'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { promisify } from 'util'

/**
 * The test run's port allocator (test/support/ports.ts): parallel workers are separate processes,
 * and a port one of them was handed must never be handed to another, even after the first closed
 * its probe socket. Several processes share one claims directory here, as mocha's workers do.
 */
describe('test house: ports handed out once per run, across worker processes', function () {
    this.timeout(120_000)
    const run = promisify(execFile)
    let dir: string

    before(() => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ports-test-'))
    })

    after(() => {
        fs.rmSync(dir, { recursive: true, force: true })
    })

    /** A separate Node process asking `count` ports, as a parallel worker would. */
    const askPorts = async (count: number) => {
        const script = `const { freePort } = require(${JSON.stringify(require.resolve('../support/ports'))});
            (async () => { const out = []; for (let i = 0; i < ${count}; i++) out.push(await freePort()); console.log(JSON.stringify(out)) })()`
        const { stdout } = await run(process.execPath, ['-e', script], { env: { ...process.env, TEST_PORTS_DIR: dir } })
        return JSON.parse(stdout) as number[]
    }

    it('gives four processes asking 150 ports each 600 different ports, each claimed in the run\'s directory', async () => {
        const lists = await Promise.all([0, 1, 2, 3].map(() => askPorts(150)))
        const all = lists.flat()
        expect(all).to.have.length(600)
        expect(new Set(all).size, 'distinct ports').to.equal(600)
        // Without the claims the OS, picking from about 28,000 ephemeral ports, would repeat several of 600.
        expect(fs.readdirSync(dir).map(Number).sort((a, b) => a - b)).to.deep.equal(all.slice().sort((a, b) => a - b))
    })
})
