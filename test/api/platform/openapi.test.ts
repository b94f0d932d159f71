import Ajv2020 from 'ajv/dist/2020'
import { expect } from 'chai'
import { Pool } from 'pg'
import { createPlatformApp } from '../../../api/platform/app'
import { parsePlatformEnv } from '../../../api/platform/config'
import { createLogger } from '../../../common/logger'
import { listen } from '../../../common/service/listen'
import { applyMigrations } from '../../../db/migrate'
import { createTestDatabase } from '../../support/postgres'
import { documentedRoutes, expectNamedOperationsWithExamples, registeredRoutes } from '../../support/registered-routes'

/** The platform port's OpenAPI document lists exactly the routes its app registers, and is served there (docs/openapi.md). */
describe('platform port: OpenAPI document = registered routes', () => {
    let built: ReturnType<typeof createPlatformApp>
    let pool: Pool
    let server: Awaited<ReturnType<typeof listen>>
    let url: string

    before(async () => {
        const databaseUrl = await createTestDatabase('platform_openapi')
        // The app follows stored transactions from the start (wallet-txs.ts) until stopped: its tables must exist.
        await applyMigrations(databaseUrl)
        const env = parsePlatformEnv({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' })
        pool = new Pool({ connectionString: databaseUrl, max: 2 })
        built = createPlatformApp({ env, masterKey: '11'.repeat(32), pool, log: createLogger('platform-openapi-test') })
        server = await listen(built.app, 0)
        url = `http://127.0.0.1:${server.port}`
    })

    after(async () => {
        await server?.close()
        await built?.stop()
        await pool?.end()
    })

    const documented = () => documentedRoutes(built.doc)

    it('registers exactly the documented routes, none outside a documented router', () => {
        expect(registeredRoutes(built.app)).to.deep.equal(documented())
        expect(documented()).to.include.members(['get /health', 'get /ready', 'get /metrics', 'post /api/wallet/register', 'get /api/wallet/balance/{address}', 'get /api/token/info/{address}', 'post /api/swap/execute_exact_tokens_for_tokens', 'get /api/docs/openapi.json', 'get /', 'get /api/swap/quote', 'get /api/wallet/list'])
        expect(documented()).to.have.length(38)
    })

    it('names every operation with an operationId, each name once, and shows an example of every input', () => {
        expectNamedOperationsWithExamples(built.doc)
    })

    it('serves its OpenAPI 3.1 document on its own port, with the password schemes', async () => {
        const res = await fetch(`${url}/api/docs/openapi.json`)
        expect(res.status).to.equal(200)
        const body = await res.json() as any
        expect(body.openapi).to.equal('3.1.0')
        expect(body).to.deep.equal(JSON.parse(JSON.stringify(built.doc.document())))
        expect(Object.keys(body.components.securitySchemes)).to.have.members(['passwordHeader', 'passwordQuery'])
        expect(body.paths['/api/wallet/send'].post.security).to.deep.equal([{ passwordHeader: [] }, { passwordQuery: [] }])
        expect(body.paths['/health'].get.security).to.equal(undefined)
        expect(Object.keys(body.paths['/api/swap/execute_exact_native_for_tokens'].post.responses)).to.include.members(['200', '202', '400', '401', '409', '413', '422', '429', '503'])
        expect((await fetch(`${url}/api/docs/`)).status).to.equal(200)
    })

    it('answers as the document says (health, an authentication failure, a malformed body)', async () => {
        const doc = built.doc.document() as any
        const ajv = new Ajv2020({ strict: false })
        ajv.addSchema({ ...doc, $id: 'platform.json' })
        const check = async (path: string, method: string, init: RequestInit, status: number, route = path) => {
            const res = await fetch(`${url}${path}`, { method, ...init })
            expect(res.status).to.equal(status)
            const pointer = `/paths/${route.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`
            const validate = ajv.getSchema(`platform.json#${pointer}`)!
            const body = await res.json()
            expect(validate(body), `${method} ${path} ${JSON.stringify(body)}: ${ajv.errorsText(validate.errors)}`).to.equal(true)
        }
        await check('/health', 'GET', {}, 200)
        await check('/api/token/list?user_id=nobody', 'GET', {}, 401, '/api/token/list')
        await check('/api/wallet/send', 'POST', { headers: { 'content-type': 'application/json' }, body: '{"address_from":' }, 400)
        await check('/api/wallet/balance/not-an-address?user_id=x', 'GET', { headers: { 'x-user-pwd': 'password' } }, 400, '/api/wallet/balance/{address}')
    })
})
