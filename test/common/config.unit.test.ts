import { expect } from 'chai'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { parseApiEnv } from '../../api/config'
import { parsePlatformEnv } from '../../api/platform/config'
import { parseBridgeEnv } from '../../bridge/config'
import { ConfigError } from '../../common/config'
import { loadSecrets } from '../../common/secrets'
import { parseIndexerEnv } from '../../indexer/config'
import { parseLauncherEnv } from '../../launcher/config'

describe('configuration', () => {
    it('applies the documented defaults', () => {
        const env = parseLauncherEnv({})
        expect(env).to.include({ CHAIN_ID: 3009, DEVNET_PORT: 8545, EXPLORER_PORT: 4000, PLATFORM_PORT: 4001, BRIDGE_PORT: 4002, INDEXER_BATCH_BLOCKS: 5_000 })
    })

    it('refuses a bad value with a message that names the variable', () => {
        expect(() => parseLauncherEnv({ EXPLORER_PORT: 'eighty' })).to.throw(ConfigError, /EXPLORER_PORT/)
        expect(() => parseLauncherEnv({ DATABASE_URL: 'not a url' })).to.throw(ConfigError, /DATABASE_URL/)
        expect(() => parseLauncherEnv({ MASTER_KEY: 'short' })).to.throw(ConfigError, /MASTER_KEY: must be 32 bytes/)
        expect(() => parseLauncherEnv({ INDEXER_BATCH_BLOCKS: '20000' })).to.throw(ConfigError, /INDEXER_BATCH_BLOCKS/)
    })

    it('gives the GraphQL server\'s limits their documented defaults and refuses a bad one by name', () => {
        expect(parseIndexerEnv({})).to.include({
            GRAPHQL_MAX_RESPONSE_NODES: 100_000, GRAPHQL_MAX_ROOT_FIELDS: 20, GRAPHQL_STATEMENT_TIMEOUT_MS: 10_000, GRAPHQL_MAX_REQUEST_KB: 256, GRAPHQL_DB_POOL_SIZE: 5,
        })
        expect(parseIndexerEnv({ GRAPHQL_MAX_RESPONSE_NODES: '500' })).to.include({ GRAPHQL_MAX_RESPONSE_NODES: 500 })
        for (const [name, value] of [['GRAPHQL_MAX_RESPONSE_NODES', '0'], ['GRAPHQL_MAX_ROOT_FIELDS', 'many'], ['GRAPHQL_STATEMENT_TIMEOUT_MS', '-1'], ['GRAPHQL_MAX_REQUEST_KB', '1.5'], ['GRAPHQL_DB_POOL_SIZE', '0']]) {
            expect(() => parseIndexerEnv({ [name]: value }), name).to.throw(ConfigError, new RegExp(name))
        }
    })

    it('checks in each process only the shared variables and its own surfaces\'', () => {
        const bad = { BRIDGE_FEE_PERCENT: 'lots', PLATFORM_PORT: 'eighty', EXPLORER_PORT: 'ninety', INDEXER_BATCH_BLOCKS: '20000' }
        expect(() => parseIndexerEnv(bad)).to.throw(ConfigError, /INDEXER_BATCH_BLOCKS/).with.property('message').that.does.not.match(/BRIDGE_FEE_PERCENT|PLATFORM_PORT|EXPLORER_PORT/)
        expect(() => parseApiEnv(bad)).to.throw(ConfigError, /EXPLORER_PORT/).with.property('message').that.does.not.match(/BRIDGE_FEE_PERCENT|INDEXER_BATCH_BLOCKS|PLATFORM_PORT/)
        expect(() => parsePlatformEnv(bad)).to.throw(ConfigError, /PLATFORM_PORT/).with.property('message').that.does.not.match(/BRIDGE_FEE_PERCENT|INDEXER_BATCH_BLOCKS|EXPLORER_PORT/)
        expect(() => parseBridgeEnv(bad)).to.throw(ConfigError, /BRIDGE_FEE_PERCENT/).with.property('message').that.does.not.match(/PLATFORM_PORT|EXPLORER_PORT|INDEXER_BATCH_BLOCKS/)
        expect(() => parseLauncherEnv(bad)).to.throw(ConfigError, /BRIDGE_FEE_PERCENT[\s\S]*PLATFORM_PORT|PLATFORM_PORT[\s\S]*BRIDGE_FEE_PERCENT/)
        for (const parse of [parseIndexerEnv, parseApiEnv, parsePlatformEnv, parseBridgeEnv]) {
            expect(() => parse({ DATABASE_URL: 'not a url' }), parse.name).to.throw(ConfigError, /DATABASE_URL/)
        }
    })

    it('requires in production every secret a process uses, naming the missing ones', () => {
        const env = parseLauncherEnv({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40) })
        expect(() => loadSecrets(env, ['jwtSecret', 'masterKey', 'bridgeAdminToken'])).to.throw(ConfigError, /MASTER_KEY, BRIDGE_ADMIN_TOKEN/)
        expect(() => loadSecrets(parsePlatformEnv({ NODE_ENV: 'production' }), ['masterKey'])).to.throw(ConfigError, /MASTER_KEY/)
    })

    it('gives the api process no MASTER_KEY: its schema does not read it and it starts in production without it', () => {
        const env = parseApiEnv({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40), MASTER_KEY: '11'.repeat(32) })
        expect(env).not.to.have.property('MASTER_KEY')
        expect(loadSecrets(env, ['jwtSecret'])).to.deep.equal({ jwtSecret: 'x'.repeat(40) })
        expect(parsePlatformEnv({ MASTER_KEY: '11'.repeat(32) })).to.have.property('MASTER_KEY', '11'.repeat(32))
    })

    it('generates development secrets once, privately, and reuses them', () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secrets-'))
        try {
            const env = parseLauncherEnv({ DATA_DIR: dir })
            const all = ['jwtSecret', 'masterKey', 'bridgeAdminToken'] as const
            const first = loadSecrets(env, all)
            expect(first.masterKey).to.match(/^[0-9a-f]{64}$/)
            expect(loadSecrets(env, all)).to.deep.equal(first)
            // A process that loads one secret keeps the others in the file for the next.
            expect(loadSecrets(env, ['masterKey'])).to.deep.equal({ masterKey: first.masterKey })
            expect(loadSecrets(env, all)).to.deep.equal(first)
            expect(fs.statSync(path.join(dir, 'secrets.json')).mode & 0o777).to.equal(0o600)
            const fromEnv = loadSecrets(parseLauncherEnv({ DATA_DIR: dir, JWT_SECRET: 'y'.repeat(40) }), all)
            expect(fromEnv.jwtSecret).to.equal('y'.repeat(40))
            expect(fromEnv.masterKey).to.equal(first.masterKey)
        } finally {
            fs.rmSync(dir, { recursive: true, force: true })
        }
    })
})
