import Ajv2020 from 'ajv/dist/2020'
import { expect } from 'chai'
import { randomBytes, randomUUID } from 'crypto'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { Pool } from 'pg'
import { createLogger } from '../../common/logger'
import { listen } from '../../common/service/listen'
import { loadBridgeConfig, parseBridgeEnv } from '../../bridge/config'
import { LockManager } from '../../bridge/db'
import { EngineContext } from '../../bridge/engine/context'
import { createApp } from '../../bridge/http/app'
import { KeyManager } from '../../bridge/keys'
import { Webhooks } from '../../bridge/webhooks/service'
import { documentedRoutes, expectNamedOperationsWithExamples, registeredRoutes } from '../support/registered-routes'

/**
 * The bridge port's OpenAPI document lists exactly the routes its app registers (docs/openapi.md).
 * The app is built in-process on a database that is never reached: every answer checked here comes
 * from the configuration alone.
 */
describe('bridge port: OpenAPI document = registered routes', () => {
    const log = createLogger('openapi-test')
    const unreachable = 'postgres://bridge@127.0.0.1:9/none'
    let dir: string
    let pool: Pool
    let webhooks: Webhooks
    let built: ReturnType<typeof createApp>
    let server: Awaited<ReturnType<typeof listen>>
    let base: string

    before(async () => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bridge-openapi-'))
        // DATA_DIR empty: no devnet records, so only the native chain is enabled, whatever this machine ran before.
        const env = parseBridgeEnv({ DATABASE_URL: unreachable, DATA_DIR: dir, LOG_LEVEL: 'warn' })
        const masterKey = randomBytes(32).toString('hex')
        pool = new Pool({ connectionString: unreachable, max: 1 })
        const ctx = new EngineContext(pool, loadBridgeConfig(env), new Map(), new KeyManager(pool, masterKey), new LockManager(unreachable, log), log)
        // No admin token: the management routes answer 503 not_configured without touching the database.
        webhooks = new Webhooks({ databaseUrl: unreachable, masterKey, adminToken: undefined, config: loadBridgeConfig(env).webhooks, log })
        built = createApp(env, ctx, new Map(), webhooks)
        server = await listen(built.app, 0)
        base = `http://127.0.0.1:${server.port}`
    })

    after(async () => {
        await server?.close()
        await webhooks?.stop()
        await pool?.end()
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    const documented = documentedRoutes

    it('registers exactly the documented routes, none outside a documented router', () => {
        expect(registeredRoutes(built.app)).to.deep.equal(documented(built.doc))
        expect(documented(built.doc)).to.include.members([
            'get /health', 'get /api/tokens', 'post /api/swap', 'get /api/swap/{id}/events', 'get /api/swap/pool-price/{pool}',
            'get /api/webhook/event-types', 'post /api/webhook/retry/{eventId}', 'get /api/docs/openapi.json',
        ])
    })

    it('names every operation with an operationId, each name once, and shows an example of every input', () => {
        expectNamedOperationsWithExamples(built.doc)
    })

    it('serves the OpenAPI 3.1 document and the Swagger UI page over HTTP', async () => {
        const res = await fetch(`${base}/api/docs/openapi.json`)
        expect(res.status).to.equal(200)
        const body = await res.json() as any
        expect(body.openapi).to.equal('3.1.0')
        expect(body).to.deep.equal(JSON.parse(JSON.stringify(built.doc.document())))
        expect(body.info.description).to.contain('/ws')
        expect(body.components.securitySchemes.webhookAdminToken).to.deep.include({ type: 'http', scheme: 'bearer' })
        expect(body.paths['/api/webhook/subscriptions'].post.security).to.deep.equal([{ webhookAdminToken: [] }])
        expect(body.paths['/api/webhook/event-types'].get.security).to.equal(undefined)
        // 409 and 422: an Idempotency-Key in flight, or used with another body (docs/bridge/lifecycle.md).
        expect(Object.keys(body.paths['/api/swap'].post.responses).sort()).to.deep.equal(['201', '400', '409', '413', '415', '422', '429', '503'])
        expect(body.paths['/api/swap'].post.parameters.map((p: any) => `${p.in}:${p.name}`)).to.include('header:Idempotency-Key')
        // Only the native chain is enabled here (no devnet records): the enums list what this process serves.
        const quoteChain = body.paths['/api/swap/quote'].get.parameters.find((p: any) => p.name === 'source_chain')
        expect(quoteChain.schema.enum).to.deep.equal(['NATIVECHAIN'])
        // One chain enabled: no swap between enabled chains to show, so the example is a route of the registry.
        expect(quoteChain.example).to.equal('BSC')
        expect(body.paths['/api/swap'].post.requestBody.content['application/json'].example).to.include({ source_chain: 'BSC', source_token_amount: '25.5' })

        const page = await fetch(`${base}/api/docs/`)
        expect(page.status).to.equal(200)
        expect(page.headers.get('content-type')).to.match(/^text\/html/)
        expect(await page.text()).to.contain('swagger-ui')
    })

    it('answers what the document says on the routes that need no database', async () => {
        const ajv = new Ajv2020({ strict: false, allErrors: true })
        ajv.addSchema(built.doc.document(), 'doc')
        const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')
        const check = async (method: string, url: string, documentedPath: string, status: number) => {
            const res = await fetch(`${base}${url}`, { method: method.toUpperCase() })
            const body = await res.json()
            expect(res.status, `${method} ${url}: ${JSON.stringify(body)}`).to.equal(status)
            const validate = ajv.compile({ $ref: `doc#/${pointer('paths', documentedPath, method, 'responses', String(status), 'content', 'application/json', 'schema')}` })
            expect(validate(body), `${method} ${url}: ${ajv.errorsText(validate.errors)}`).to.equal(true)
        }
        // Path patterns are usable as the document writes them (a regex flag would not survive).
        const id = ajv.compile({ $ref: `doc#/${pointer('paths', '/api/swap/{id}', 'get', 'parameters', '0', 'schema')}` })
        expect([randomUUID(), randomUUID().toUpperCase(), 'not-a-uuid'].map((v) => id(v))).to.deep.equal([true, true, false])
        await check('get', '/health', '/health', 200)
        // The database here is unreachable: /ready says so, in the documented body.
        await check('get', '/ready', '/ready', 503)
        await check('get', '/api/tokens', '/api/tokens', 200)
        await check('get', '/api/swap/config', '/api/swap/config', 200)
        await check('get', '/api/swap', '/api/swap', 200)
        await check('get', '/api/swap/pool-price/nowhere', '/api/swap/pool-price/{pool}', 404)
        await check('get', '/api/swap/not-a-uuid/status', '/api/swap/{id}/status', 400)
        await check('get', '/api/webhook/event-types', '/api/webhook/event-types', 200)
        await check('get', '/api/webhook/subscriptions', '/api/webhook/subscriptions', 503)
    })
})
