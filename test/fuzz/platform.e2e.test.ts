import { expect } from 'chai'
import { newWallet, PlatformFixture, startPlatform } from '../api/platform/support'
import { describeCoverage, describeFailures, fuzzApi } from '../support/fuzz/fuzz'
import { fuzzSettings } from '../support/fuzz/settings'

/**
 * The fuzzer over the wallet platform's OpenAPI document on the real platform process and a test
 * chain, with a registered user and wallet. Routes that move money get invalid requests only.
 * docs/testing.md#fuzzing
 */
describe('fuzz: wallet platform', function () {
    const settings = fuzzSettings({ seed: 20261126, runs: 20 })
    this.timeout(settings.testTimeoutMs)
    const userId = 'fuzz-user'
    const password = 'fuzz password 0123456789'
    let fixture: PlatformFixture | undefined
    let wallet: string

    before(async () => {
        fixture = await startPlatform()
        wallet = await newWallet(fixture.http, userId, password)
    })

    after(async () => {
        await fixture?.stop()
    })

    it('answers every generated request as its document says: no 5xx, documented statuses and bodies', async () => {
        const contracts = fixture!.chain.contracts
        const report = await fuzzApi({
            baseUrl: fixture!.platform.platformUrl,
            seed: settings.seed,
            runs: settings.runs,
            replay: settings.replay,
            headers: { 'x-user-pwd': password },
            values: {
                user_id: [userId],
                address: [wallet, contracts.stable],
                address_from: [wallet],
                token: [contracts.stable, contracts.wnative],
            },
            invalidOnly: [
                'POST /api/wallet/send', 'POST /api/wallet/withdraw', 'POST /api/token/deploy',
                'POST /api/pools/add_liquidity', 'POST /api/pools/add_liquidity_native', 'POST /api/pools/remove_liquidity', 'POST /api/pools/remove_liquidity_native',
                'POST /api/swap/execute_exact_tokens_for_tokens', 'POST /api/swap/execute_tokens_for_exact_tokens',
                'POST /api/swap/execute_exact_native_for_tokens', 'POST /api/swap/execute_native_for_exact_tokens',
                'POST /api/swap/execute_exact_tokens_for_native', 'POST /api/swap/execute_tokens_for_exact_native',
            ],
        })
        if (settings.verbose) console.log(describeCoverage(report))
        expect(report.failures.length, describeFailures(report)).to.equal(0)
        if (settings.replay) return
        expect(report.statuses[200], 'valid requests answered 200').to.be.greaterThan(0)
    })
})
