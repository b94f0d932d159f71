import { expect } from 'chai'
import { Pool } from 'pg'
import { createLogger } from '../../common/logger'
import { createApiApp } from '../../api/app'
import { parseApiEnv } from '../../api/config'
import { createTestDatabase } from '../support/postgres'
import { registeredRoutes } from '../support/registered-routes'

/** The explorer port's OpenAPI document lists exactly the routes its app registers (docs/openapi.md). */
describe('explorer port: OpenAPI document = registered routes', () => {
    let built: ReturnType<typeof createApiApp>
    let pool: Pool

    before(async () => {
        const url = await createTestDatabase('openapi')
        const env = parseApiEnv({ DATABASE_URL: url, JWT_SECRET: 'test-jwt-secret-of-at-least-32-characters', LOG_LEVEL: 'warn' })
        pool = new Pool({ connectionString: url, max: 2 })
        built = createApiApp({ env, secrets: { jwtSecret: env.JWT_SECRET! }, pool, log: createLogger('openapi-test') })
    })

    after(async () => {
        await built?.chain.close()
        await pool?.end()
    })

    const documented = () => built.doc.documentedRoutes().map((r) => `${r.method} ${r.path}`).sort()
    const isChain = (route: string) => / \/api\/v2(\/|$)/.test(route) || route === 'get /api'

    it('the chain data API (/api/v2 and the Etherscan-style GET /api)', () => {
        expect(registeredRoutes(built.app).filter(isChain)).to.deep.equal(documented().filter(isChain))
        expect(documented().filter(isChain)).to.not.be.empty
    })

    it('the explorer services (the rest of /api), with no route outside a documented router', () => {
        expect(registeredRoutes(built.app).filter((r) => !isChain(r))).to.deep.equal(documented().filter((r) => !isChain(r)))
        expect(documented().filter((r) => !isChain(r)).length).to.be.greaterThan(10)
    })
})
