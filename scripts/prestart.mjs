#!/usr/bin/env node
// `npm start`'s build deletes lib/ and compiles it again. Not while a launcher runs from that lib/:
// its services load files as they go (workers, the GraphQL server) and would find them gone.
import { spawn } from 'child_process'
import * as fs from 'fs'
import { createRequire } from 'module'
import * as path from 'path'

const lib = path.resolve('lib')
const check = path.join(lib, 'launcher', 'single-instance.js')
if (fs.existsSync(check)) {
    const holder = createRequire(import.meta.url)(check).holderOf(lib)
    if (holder !== undefined) {
        console.error(`npm start is already running (pid ${holder}) from ${lib}: use that one, or stop it first (Ctrl-C in its terminal, or kill ${holder}); building now would delete the code it runs`)
        process.exit(1)
    }
}
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
spawn(npm, ['run', '--silent', 'build'], { stdio: 'inherit' }).on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
