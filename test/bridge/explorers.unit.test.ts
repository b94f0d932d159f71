import { expect } from 'chai'
import { finalitySeconds } from '../../bridge/chains/timing'
import { loadBridgeConfig, parseBridgeEnv } from '../../bridge/config'
import { explorerSetting, parseExplorer } from '../../bridge/explorers'

/** BRIDGE_EXPLORER_URL_<CHAIN> and the finality estimate behind the swap page (docs/bridge/README.md#swap-page). */
describe('bridge: explorer links and finality estimates of the swap page', function () {
    it('reads a base URL as /tx/{hash} and /address/{address}, and two templates as they are', function () {
        expect(parseExplorer('https://etherscan.io/')).to.deep.equal({ tx: 'https://etherscan.io/tx/{hash}', address: 'https://etherscan.io/address/{address}' })
        expect(parseExplorer('https://tronscan.org/#/transaction/{hash} https://tronscan.org/#/address/{address}'))
            .to.deep.equal({ tx: 'https://tronscan.org/#/transaction/{hash}', address: 'https://tronscan.org/#/address/{address}' })
        expect(parseExplorer(undefined)).to.equal(null)
    })

    it('refuses values that are not a URL or a pair of templates', function () {
        for (const bad of ['explorer.example', 'ftp://x.example', 'https://x.example/tx/{hash}', 'https://a/{address} https://a/{hash}', 'https://a b']) {
            expect(explorerSetting.safeParse(bad).success, bad).to.equal(false)
        }
        expect(() => parseBridgeEnv({ BRIDGE_EXPLORER_URL_BSC: 'bscscan.com' })).to.throw(/BRIDGE_EXPLORER_URL_BSC/)
    })

    it('gives the configured networks their links, and the others none', function () {
        const config = loadBridgeConfig(parseBridgeEnv({ BRIDGE_EXPLORER_URL_NATIVECHAIN: 'http://explorer.test', DATA_DIR: '/nonexistent', RPC_URL: 'http://127.0.0.1:1' }))
        expect(config.explorers).to.deep.equal({ NATIVECHAIN: { tx: 'http://explorer.test/tx/{hash}', address: 'http://explorer.test/address/{address}' } })
    })

    it('estimates finality from confirmations times the block time, or the tag\'s typical time', function () {
        expect(finalitySeconds('NATIVECHAIN', { confirmations: 10 })).to.equal(20)
        expect(finalitySeconds('ETHEREUM', { tag: 'finalized' })).to.equal(900)
        expect(finalitySeconds('BITCOIN', { confirmations: 3 })).to.equal(1800)
        expect(finalitySeconds('SOLANA', { confirmations: 1 })).to.equal(1)
    })
})
