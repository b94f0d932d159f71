import { expect } from 'chai'
import * as fs from 'fs'
import * as path from 'path'
import { INDEXER_NODE_OPTIONS, serviceEnv, SERVICES } from '../../launcher/services'
import { REPO_ROOT } from '../support/paths'

const ROOT = REPO_ROOT

const SECRETS = { jwtSecret: 'j'.repeat(40), masterKey: 'ab'.repeat(32), bridgeAdminToken: 't'.repeat(32) }

const secretsOf = (name: string): Record<string, string> =>
    ({ api: { JWT_SECRET: SECRETS.jwtSecret }, platform: { MASTER_KEY: SECRETS.masterKey } } as Record<string, Record<string, string>>)[name] ?? {}

describe('npm start: what each service is given', () => {
    const envOf = (name: string) => serviceEnv(SERVICES.find((s) => s.name === name)!, { PATH: '/bin', MASTER_KEY: 'cd'.repeat(32), JWT_SECRET: 'x'.repeat(40) }, SECRETS)

    it('gives the api process the session secret and no MASTER_KEY, even one exported to the launcher', () => {
        const api = envOf('api')
        expect(api).not.to.have.property('MASTER_KEY')
        expect(api).not.to.have.property('BRIDGE_ADMIN_TOKEN')
        expect(api).to.include({ JWT_SECRET: SECRETS.jwtSecret, PATH: '/bin' })
    })

    it('gives the platform MASTER_KEY alone, the bridge MASTER_KEY and its admin token, the indexer none', () => {
        expect(envOf('platform')).to.deep.equal({ PATH: '/bin', MASTER_KEY: SECRETS.masterKey })
        expect(envOf('bridge')).to.deep.equal({ PATH: '/bin', MASTER_KEY: SECRETS.masterKey, BRIDGE_ADMIN_TOKEN: SECRETS.bridgeAdminToken })
        expect(envOf('indexer')).to.deep.equal({ PATH: '/bin' })
    })

    it('gives the provider credentials (API keys, provider URLs) to the bridge alone', () => {
        const common = { PATH: '/bin', SIMPLESWAP_API_KEY: 'ss-key', TRON_API_KEY: 'tron-key', BITCOIN_RPC_PASSWORD: 'pw', ETHEREUM_RPC_URL: 'https://mainnet.example/v3/key' }
        const of = (name: string) => serviceEnv(SERVICES.find((s) => s.name === name)!, common, SECRETS)
        expect(of('bridge')).to.include(common)
        for (const name of ['indexer', 'graphql', 'api', 'platform']) expect(of(name), name).to.deep.equal({ PATH: '/bin', ...secretsOf(name) })
    })

    it('starts the wallet platform as its own process', () => {
        expect(SERVICES.find((s) => s.name === 'platform')?.entry).to.equal('api/platform/main.js')
        expect(SERVICES.find((s) => s.name === 'api')?.secrets).to.deep.equal(['jwtSecret'])
    })

    it('starts the indexer with its Node options (the heap limit) wherever it is started: npm start, npm run indexer, docker compose', () => {
        expect(INDEXER_NODE_OPTIONS).to.include('--max-old-space-size=1536')
        expect(SERVICES.find((s) => s.name === 'indexer')?.nodeOptions).to.deep.equal(INDEXER_NODE_OPTIONS)
        const script = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.indexer
        expect(script).to.equal(`node ${INDEXER_NODE_OPTIONS.join(' ')} lib/indexer/main.js`)
        const compose = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')
        expect(compose).to.include(`command: ${JSON.stringify(['node', ...INDEXER_NODE_OPTIONS, 'lib/indexer/main.js']).replace(/,/g, ', ')}`)
    })
})
