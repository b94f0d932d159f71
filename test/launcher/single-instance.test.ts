import { expect } from 'chai'
import { spawn, spawnSync } from 'child_process'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { claimDir } from '../../launcher/single-instance'

describe('npm start: one launcher per data directory', () => {
    let dir: string
    beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'claim-'))))
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

    it('claims a free directory, refuses a second claim while held, and frees it on release', () => {
        const first = claimDir(dir)
        expect(first).to.have.property('release')
        // This process runs mocha, not the launcher: a second claim by "another launcher" needs a pid that runs one.
        const launcherLike = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)', path.join('launcher', 'index.js')], { stdio: 'ignore' })
        try {
            ;(first as { release(): void }).release()
            const held = claimDir(dir, launcherLike.pid!)
            expect(held).to.have.property('release')
            expect(claimDir(dir)).to.deep.equal({ heldBy: launcherLike.pid })
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
            expect(claimDir(dir)).to.have.property('release')
            expect(fs.readFileSync(path.join(dir, 'launcher.pid'), 'utf8').trim()).to.equal(String(process.pid))
            // This process's parent is alive but runs no launcher, as a reused pid would.
            fs.writeFileSync(path.join(dir, 'launcher.pid'), `${process.ppid}\n`)
            expect(claimDir(dir)).to.have.property('release')
        })
    })

    it('npm start\'s build refuses to delete a lib/ that a running launcher claimed, and says which', () => {
        // A copy of the compiled check in a lib/ of its own, claimed by a process that looks like a launcher.
        const lib = path.join(dir, 'lib')
        fs.mkdirSync(path.join(lib, 'launcher'), { recursive: true })
        fs.copyFileSync(path.resolve(__dirname, '../../launcher/single-instance.js'), path.join(lib, 'launcher', 'single-instance.js'))
        const launcherLike = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)', path.join('launcher', 'index.js')], { stdio: 'ignore' })
        try {
            expect(claimDir(lib, launcherLike.pid!)).to.have.property('release')
            const prestart = spawnSync(process.execPath, [path.resolve(__dirname, '../../../scripts/prestart.mjs')], { cwd: dir, encoding: 'utf8' })
            expect(prestart.status).to.equal(1)
            expect(prestart.stderr).to.include(`npm start is already running (pid ${launcherLike.pid})`)
            expect(fs.existsSync(path.join(lib, 'launcher', 'single-instance.js')), 'lib/ is left as it was').to.equal(true)
        } finally {
            launcherLike.kill()
        }
    })
})
