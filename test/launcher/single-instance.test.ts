import { expect } from 'chai'
import { spawn } from 'child_process'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { claimDataDir } from '../../launcher/single-instance'

describe('npm start: one launcher per data directory', () => {
    let dir: string
    beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'claim-'))))
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

    it('claims a free directory, refuses a second claim while held, and frees it on release', () => {
        const first = claimDataDir(dir)
        expect(first).to.have.property('release')
        // This process runs mocha, not the launcher: a second claim by "another launcher" needs a pid that runs one.
        const launcherLike = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)', path.join('launcher', 'index.js')], { stdio: 'ignore' })
        try {
            ;(first as { release(): void }).release()
            const held = claimDataDir(dir, launcherLike.pid!)
            expect(held).to.have.property('release')
            expect(claimDataDir(dir)).to.deep.equal({ heldBy: launcherLike.pid })
            ;(held as { release(): void }).release()
            expect(fs.existsSync(path.join(dir, 'launcher.pid'))).to.equal(false)
        } finally {
            launcherLike.kill()
        }
    })

    it('takes over a file left by a launcher that is gone, or whose pid now runs another program', () => {
        const gone = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
        const goneId = gone.pid!
        fs.writeFileSync(path.join(dir, 'launcher.pid'), `${goneId}\n`)
        return new Promise<void>((resolve) => gone.on('exit', () => resolve())).then(() => {
            expect(claimDataDir(dir)).to.have.property('release')
            expect(fs.readFileSync(path.join(dir, 'launcher.pid'), 'utf8').trim()).to.equal(String(process.pid))
            // This process's parent is alive but runs no launcher, as a reused pid would.
            fs.writeFileSync(path.join(dir, 'launcher.pid'), `${process.ppid}\n`)
            expect(claimDataDir(dir)).to.have.property('release')
        })
    })
})
