import { expect } from 'chai'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { ConfigError, ContractsNotConfigured, nativeContracts, ourContracts } from '../../common/config'
import { dexFactories, parseIndexerEnv } from '../../indexer/config'
import { parseLauncherEnv } from '../../launcher/config'

const A = (digit: string) => '0x' + digit.repeat(40)
const OURS = { WNATIVE_ADDRESS: A('1'), STABLE_ADDRESS: A('2'), AMM_FACTORY_ADDRESS: A('3'), AMM_ROUTER_ADDRESS: A('4') }

/** docs/own-chain.md: our four contracts all or none, and the DEX factories the indexer keeps. */
describe('configuration of a chain we did not deploy', () => {
    let dataDir: string

    beforeEach(() => {
        dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'own-chain-config-'))
    })

    afterEach(() => {
        fs.rmSync(dataDir, { recursive: true, force: true })
    })

    const indexerEnv = (vars: Record<string, string>) => parseIndexerEnv({ DATA_DIR: dataDir, RPC_URL: 'http://127.0.0.1:1', ...vars })

    it('none of our contracts: no contracts, no factory unless DEX_FACTORIES lists some, and the surfaces that need them say they are off', () => {
        const env = indexerEnv({ CHAIN_ID: '777', INDEXER_START_BLOCK: '12' })
        expect(env).to.include({ CHAIN_ID: 777, INDEXER_START_BLOCK: 12 })
        expect(ourContracts(env)).to.equal(undefined)
        expect(dexFactories(env)).to.deep.equal([])
        expect(() => nativeContracts(env, 'the bridge')).to.throw(ContractsNotConfigured, /^the bridge is off: our contracts are not configured; set WNATIVE_ADDRESS, STABLE_ADDRESS, AMM_FACTORY_ADDRESS and AMM_ROUTER_ADDRESS/)
        const listed = indexerEnv({ DEX_FACTORIES: ` ${A('A')}, ${A('b')},${A('a')}` })
        expect(dexFactories(listed)).to.deep.equal([A('a'), A('b')])
    })

    it('all four: our contracts, and our factory indexed first beside DEX_FACTORIES, once', () => {
        const env = indexerEnv({ ...OURS, DEX_FACTORIES: `${A('5')},${A('3')}` })
        expect(ourContracts(env)).to.deep.equal({ wnative: A('1'), stable: A('2'), factory: A('3'), router: A('4') })
        expect(dexFactories(env)).to.deep.equal([A('3'), A('5')])
        expect(dexFactories(indexerEnv(OURS))).to.deep.equal([A('3')])
    })

    it('a partial set: a clear error naming the missing variables, in every process that reads them', () => {
        const partial = { WNATIVE_ADDRESS: A('1'), AMM_FACTORY_ADDRESS: A('3') }
        const message = /must be set together or not at all \(docs\/own-chain.md\); missing: STABLE_ADDRESS, AMM_ROUTER_ADDRESS$/
        expect(() => ourContracts(indexerEnv(partial))).to.throw(ConfigError, message)
        expect(() => ourContracts(parseLauncherEnv({ DATA_DIR: dataDir, ...partial }))).to.throw(ConfigError, message)
    })

    it('a bad factory list is refused by name at parse time', () => {
        for (const value of ['0x1234', `${A('1')};${A('2')}`, `${A('1')},`, 'factory']) {
            expect(() => indexerEnv({ DEX_FACTORIES: value }), value).to.throw(ConfigError, /DEX_FACTORIES: must be 0x-prefixed 20-byte hex addresses, comma-separated/)
        }
    })

    it('the devnet\'s deployment file stands in for unset variables only when written for this CHAIN_ID', () => {
        const contracts = { wnative: A('6'), stable: A('7'), factory: A('8'), router: A('9') }
        fs.writeFileSync(path.join(dataDir, 'deployment.json'), JSON.stringify({ chainId: 3009, contracts, startBlock: 1, tokens: {}, pairs: {} }))
        expect(ourContracts(indexerEnv({}))).to.deep.equal(contracts)
        expect(dexFactories(indexerEnv({}))).to.deep.equal([A('8')])
        expect(ourContracts(indexerEnv({ CHAIN_ID: '777' }))).to.equal(undefined)
        // Variables win over the file.
        expect(ourContracts(indexerEnv(OURS))!.stable).to.equal(A('2'))
    })
})
