import Ajv2020 from 'ajv/dist/2020'
import { expect } from 'chai'
import { Pool } from 'pg'
import { createLogger } from '../../common/logger'
import { createApiApp } from '../../api/app'
import { CHAIN_EXAMPLES } from '../../api/chain/request-examples'
import { EXPLORER_EXAMPLES } from '../../api/explorer/request-examples'
import { parseApiEnv } from '../../api/config'
import { createTestDatabase } from '../support/postgres'
import { documentedRoutes, expectNamedOperationsWithExamples, registeredRoutes } from '../support/registered-routes'

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

    const documented = () => documentedRoutes(built.doc)
    // Of /api/v1, the address CSV exports Blockscout keeps there for its frontend (the stats service and the DEX pools there are other surfaces).
    const isChain = (route: string) => / \/api\/v2(\/|$)/.test(route) || / \/api\/v1\/[a-z-]+-csv$/.test(route) || /^(get|post) \/api$/.test(route)

    it('the chain data API (/api/v2, /api/v1 and the Etherscan-style GET /api)', () => {
        expect(registeredRoutes(built.app).filter(isChain)).to.deep.equal(documented().filter(isChain))
        expect(documented().filter(isChain)).to.not.be.empty
    })

    it("the chain data API's part of the document generates, and each of its answer schemas compiles (JSON Schema 2020-12)", () => {
        const document = built.doc.document() as { paths: Record<string, Record<string, { responses: Record<string, any> }>>; components: object }
        const ajv = new Ajv2020({ strict: false })
        ajv.addSchema({ $id: 'doc', components: document.components })
        const chainOperations = Object.entries(document.paths).flatMap(([path, methods]) =>
            Object.entries(methods).filter(([method]) => isChain(`${method} ${path}`)).map(([method, op]) => ({ path, method, op })))
        expect(chainOperations).to.have.length(documented().filter(isChain).length)
        for (const { path, method, op } of chainOperations) {
            for (const [status, answer] of Object.entries(op.responses)) {
                // JSON, or the CSV exports' text/csv.
                const schema = answer.content?.['application/json']?.schema ?? answer.content?.['text/csv']?.schema
                expect(schema, `${method.toUpperCase()} ${path} ${status}`).to.be.an('object')
                // Component references resolve against the document added above.
                ajv.compile(JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"doc#/components/')))
            }
        }
    })

    it('names every operation with an operationId, each name once, and shows an example of every input', () => {
        // The chain data API, the Etherscan-style API and the explorer services alike.
        expectNamedOperationsWithExamples(built.doc)
    })

    it('keeps the examples of each surface in its own module, an operation in one of them only', () => {
        expect(Object.keys(CHAIN_EXAMPLES).filter((id) => Object.hasOwn(EXPLORER_EXAMPLES, id))).to.deep.equal([])
    })

    it('the explorer services (the rest of /api), with no route outside a documented router', () => {
        expect(registeredRoutes(built.app).filter((r) => !isChain(r))).to.deep.equal(documented().filter((r) => !isChain(r)))
        expect(documented().filter((r) => !isChain(r)).length).to.be.greaterThan(10)
    })
})
