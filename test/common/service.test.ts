import { expect } from 'chai'
import { spawn } from 'child_process'
import express from 'express'
import * as path from 'path'
import { bridgeErrors } from '../../bridge/http/errors'
import { chainErrors, invalidParam } from '../../api/chain/errors'
import { explorerErrors } from '../../api/explorer/errors'
import { platformErrors } from '../../api/platform/http'
import { createLogger } from '../../common/logger'
import { Pool } from 'pg'
import { clientIp, limitKeyOf } from '../../common/service/client-ip'
import { RateLimit } from '../../common/service/rate-limit'
import { applyMigrations } from '../../db/migrate'
import { createTestDatabase } from '../support/postgres'
import { ErrorSurface, errorHandler } from '../../common/service/error-handler'
import { HttpError } from '../../common/service/http-error'
import { listen } from '../../common/service/listen'

const RUN_SERVICE = path.resolve(__dirname, '../../common/service/run-service.js')

/** One app per surface: /fail throws what the test puts in `thrown`; bodies are JSON up to 10 bytes. */
async function serve(surface: ErrorSurface) {
    let thrown: unknown
    const app = express()
    app.use(express.json({ limit: '10b' }))
    app.all('/fail', () => {
        throw thrown
    })
    app.use(errorHandler(surface, createLogger('test').child({}, { level: 'silent' })))
    const server = await listen(app, 0, '127.0.0.1')
    const call = async (error: unknown, body?: string) => {
        thrown = error
        const res = await fetch(`http://127.0.0.1:${server.port}/fail`, {
            method: body === undefined ? 'GET' : 'POST',
            headers: { 'content-type': 'application/json' },
            body,
        })
        return { status: res.status, headers: res.headers, text: await res.text() }
    }
    return { call, close: server.close }
}

describe('service kit', function () {
    describe('the error envelope', function () {
        it('writes an HttpError in each surface\'s body, with its headers', async function () {
            const limited = new HttpError(429, 'slow down', { code: 'rate_limited', headers: { 'Retry-After': '7' } })
            const field = new HttpError(400, 'email: is required', { code: 'invalid_request', details: { field: 'email' } })
            const expected: Array<[ErrorSurface, unknown, string, string]> = [
                [explorerErrors, limited, '{"error":{"code":"rate_limited","message":"slow down"}}', '7'],
                [bridgeErrors, field, '{"error":{"code":"invalid_request","message":"email: is required","field":"email"}}', ''],
                [platformErrors, limited, '{"success":false,"error":"slow down"}', '7'],
                [chainErrors, invalidParam('hash', 'Invalid hash'), '{"errors":[{"title":"Invalid value","source":{"pointer":"/hash"},"detail":"Invalid hash"}]}', ''],
            ]
            for (const [surface, error, body, retryAfter] of expected) {
                const app = await serve(surface)
                try {
                    const res = await app.call(error)
                    expect(res.text, surface.name).to.equal(body)
                    expect(res.headers.get('retry-after') ?? '', surface.name).to.equal(retryAfter)
                } finally {
                    await app.close()
                }
            }
        })

        it('answers bad JSON, an oversized body and an unexpected error as each surface documents', async function () {
            const expected: Array<[ErrorSurface, string[]]> = [
                [explorerErrors, [
                    '400 {"error":{"code":"invalid_json","message":"request body is not valid JSON"}}',
                    '413 {"error":{"code":"payload_too_large","message":"request body is too large"}}',
                    '500 {"error":{"code":"internal","message":"internal error"}}',
                ]],
                [bridgeErrors, [
                    '400 {"error":{"code":"invalid_json","message":"the body is not valid JSON","field":"body"}}',
                    '413 {"error":{"code":"payload_too_large","message":"the body is larger than 16 kB"}}',
                    '500 {"error":{"code":"internal","message":"internal error"}}',
                ]],
                [platformErrors, [
                    '400 {"success":false,"error":"Malformed JSON body"}',
                    '413 {"success":false,"error":"Request body too large"}',
                    '500 {"success":false,"error":"Internal error"}',
                ]],
                [chainErrors, [
                    '400 {"message":"Unexpected end of JSON input"}',
                    '413 {"message":"request entity too large"}',
                    '500 {"message":"Internal server error"}',
                ]],
            ]
            for (const [surface, answers] of expected) {
                const app = await serve(surface)
                try {
                    const seen = []
                    for (const [error, body] of [[undefined, '{"a":'], [undefined, '{"a":"0123456789"}'], [new Error('the secret detail'), undefined]] as const) {
                        const res = await app.call(error, body)
                        seen.push(`${res.status} ${res.text}`)
                    }
                    expect(seen, surface.name).to.deep.equal(answers)
                } finally {
                    await app.close()
                }
            }
        })
    })

    it('answers a path parameter that is not valid percent-encoding with 400 in our words, on every surface', async function () {
        for (const surface of [chainErrors, explorerErrors, platformErrors, bridgeErrors]) {
            const app = express()
            app.get('/things/:id', (_req, res) => void res.send('never'))
            app.use(errorHandler(surface, createLogger('test').child({}, { level: 'silent' })))
            const server = await listen(app, 0, '127.0.0.1')
            try {
                const res = await fetch(`http://127.0.0.1:${server.port}/things/%E0%A4%A`)
                const text = await res.text()
                expect(res.status, surface.name).to.equal(400)
                expect(text, surface.name).to.contain('a path parameter is not valid percent-encoding')
                expect(text, surface.name).to.not.contain('Failed to decode')
            } finally {
                await server.close()
            }
        }
    })

    it('clientIp unwraps IPv4-mapped IPv6', function () {
        expect(clientIp({ ip: '::ffff:10.0.0.7', socket: {} } as any)).to.equal('10.0.0.7')
        expect(clientIp({ ip: '2001:db8::1', socket: {} } as any)).to.equal('2001:db8::1')
        expect(clientIp({ socket: { remoteAddress: '127.0.0.1' } } as any)).to.equal('127.0.0.1')
    })

    it('keys limits by IPv4 address and by IPv6 /64 network', function () {
        expect(limitKeyOf('10.0.0.7')).to.equal('10.0.0.7')
        expect(limitKeyOf('2001:db8:1:2:3:4:5:6')).to.equal('2001:db8:1:2::/64')
        expect(limitKeyOf('2001:DB8:0001:0002::9')).to.equal('2001:db8:1:2::/64')
        expect(limitKeyOf('2001:db8::1')).to.equal('2001:db8:0:0::/64')
        expect(limitKeyOf('fe80::1%eth0')).to.equal('fe80:0:0:0::/64')
        expect(limitKeyOf('::ffff:10.0.0.7')).to.equal('10.0.0.7')
    })

    it('a per-IP limit binds every address of one IPv6 /64, and not the next /64', async function () {
        const url = await createTestDatabase('clientkey')
        await applyMigrations(url)
        const pool = new Pool({ connectionString: url, max: 2 })
        const app = express()
        app.set('trust proxy', 1)
        app.get('/x', new RateLimit(pool, 'explorer_rate_limit', { name: 'x', points: 2, windowSeconds: 60 }, () => 'slow down').perIp(), (_req, res) => void res.send('ok'))
        app.use(errorHandler(explorerErrors, createLogger('test').child({}, { level: 'silent' })))
        const server = await listen(app, 0, '127.0.0.1')
        const from = async (ip: string) => (await fetch(`http://127.0.0.1:${server.port}/x`, { headers: { 'x-forwarded-for': ip } })).status
        try {
            expect(await from('2001:db8:1:2::1')).to.equal(200)
            expect(await from('2001:db8:1:2::2')).to.equal(200)
            expect(await from('2001:db8:1:2:ffff:ffff:ffff:ffff')).to.equal(429)
            expect(await from('2001:db8:1:3::1')).to.equal(200)
        } finally {
            await server.close()
            await pool.end()
        }
    })

    describe('runService', function () {
        const run = (body: string, signal?: NodeJS.Signals) => new Promise<{ code: number | null; output: string }>((resolve) => {
            const script = `require(${JSON.stringify(RUN_SERVICE)}).runService('probe', async ({ onStop }) => { ${body} })`
            const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] })
            let output = ''
            child.stdout.on('data', (d) => {
                output += d
                if (signal && output.includes('READY')) child.kill(signal)
            })
            child.stderr.on('data', (d) => (output += d))
            child.on('exit', (code) => resolve({ code, output }))
        })

        it('on SIGTERM runs the closers once, the last registered first, and exits with 0', async function () {
            const { code, output } = await run(`
                onStop(() => console.log('CLOSE pool'))
                onStop(() => new Promise((r) => setTimeout(() => { console.log('CLOSE server'); r() }, 50)), () => console.log('CLOSE socket'))
                onStop(() => { throw new Error('a closer that fails') })
                setInterval(() => {}, 1000)
                console.log('READY')`, 'SIGTERM')
            expect(code).to.equal(0)
            expect(output.match(/CLOSE \w+/g)).to.deep.equal(['CLOSE socket', 'CLOSE server', 'CLOSE pool'])
            expect(output).to.include('failed to stop cleanly')
        })

        it('logs a failed start and exits with 1', async function () {
            const { code, output } = await run(`throw new Error('no database')`)
            expect(code).to.equal(1)
            expect(output).to.match(/probe failed to start/).and.to.match(/no database/)
        })
    })
})
