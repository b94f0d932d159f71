import { expect } from 'chai'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { ConfigError, parseEnv } from '../../common/config'
import { loadSecrets } from '../../common/secrets'

describe('configuration', () => {
    it('applies the documented defaults', () => {
        const env = parseEnv({})
        expect(env).to.include({ CHAIN_ID: 3009, DEVNET_PORT: 8545, EXPLORER_PORT: 4000, PLATFORM_PORT: 4001, BRIDGE_PORT: 4002, INDEXER_BATCH_BLOCKS: 5_000 })
    })

    it('refuses a bad value with a message that names the variable', () => {
        expect(() => parseEnv({ EXPLORER_PORT: 'eighty' })).to.throw(ConfigError, /EXPLORER_PORT/)
        expect(() => parseEnv({ DATABASE_URL: 'not a url' })).to.throw(ConfigError, /DATABASE_URL/)
        expect(() => parseEnv({ MASTER_KEY: 'short' })).to.throw(ConfigError, /MASTER_KEY: must be 32 bytes/)
        expect(() => parseEnv({ INDEXER_BATCH_BLOCKS: '20000' })).to.throw(ConfigError, /INDEXER_BATCH_BLOCKS/)
    })

    it('requires every secret in production, naming the missing ones', () => {
        const env = parseEnv({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40) })
        expect(() => loadSecrets(env)).to.throw(ConfigError, /MASTER_KEY, BRIDGE_ADMIN_TOKEN/)
    })

    it('generates development secrets once, privately, and reuses them', () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secrets-'))
        try {
            const env = parseEnv({ DATA_DIR: dir })
            const first = loadSecrets(env)
            expect(first.masterKey).to.match(/^[0-9a-f]{64}$/)
            expect(loadSecrets(env)).to.deep.equal(first)
            expect(fs.statSync(path.join(dir, 'secrets.json')).mode & 0o777).to.equal(0o600)
            const fromEnv = loadSecrets(parseEnv({ DATA_DIR: dir, JWT_SECRET: 'y'.repeat(40) }))
            expect(fromEnv.jwtSecret).to.equal('y'.repeat(40))
            expect(fromEnv.masterKey).to.equal(first.masterKey)
        } finally {
            fs.rmSync(dir, { recursive: true, force: true })
        }
    })
})
