#!/usr/bin/env node
// `npm test`'s first step: the build (tsc) and the lint (eslint) run side by side, since tsc keeps
// one core busy and leaves the other idle. Both always finish; the step fails if either does.
import { spawn } from 'child_process'

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

function run(script) {
    return new Promise((resolve) => {
        const child = spawn(npm, ['run', '--silent', script], { stdio: 'inherit' })
        child.on('exit', (code, signal) => resolve(code === 0 ? 0 : code ?? (signal ? 1 : 0)))
    })
}

const [build, lint] = await Promise.all([run('build:all'), run('lint')])
if (build !== 0) console.error('build-and-lint: the build failed')
if (lint !== 0) console.error('build-and-lint: lint found problems (docs/testing.md#lint-and-layout; `npm run lint:fix` mends layout)')
process.exit(build || lint)
