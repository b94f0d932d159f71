import { expect } from 'chai'
import { Client } from 'pg'
import { ExplorerStack, startExplorerStack, verifiedAccount } from '../api/explorer/harness'
import { describeCoverage, describeFailures, fuzzApi } from '../support/fuzz/fuzz'
import { fuzzSettings } from '../support/fuzz/settings'

/**
 * The fuzzer over the explorer port's OpenAPI document (explorer services and chain data API) on
 * the real api process, a few hand-written rows and a signed-in account. docs/testing.md#fuzzing
 */
describe('fuzz: explorer port (explorer services and chain data API)', function () {
    const settings = fuzzSettings({ seed: 20261126, runs: 15 })
    this.timeout(settings.testTimeoutMs)
    const miner = `0x${'11'.repeat(20)}`
    const holder = `0x${'33'.repeat(20)}`
    const token = `0x${'aa'.repeat(20)}`
    const blockHash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`
    let stack: ExplorerStack | undefined
    let session: string

    before(async () => {
        // Budgets far above what the fuzzer sends, so its requests reach the handlers rather than the limits.
        const budgets = ['SIGNIN_PER_IP', 'SIGNIN_FAILURES_PER_ACCOUNT_IP', 'SIGNUP_PER_IP', 'FORMS_PER_IP', 'VERIFY_CODE_PER_IP', 'RESET_PASSWORD_PER_IP', 'MAIL_REQUESTS_PER_IP']
        stack = await startExplorerStack({
            env: { ...Object.fromEntries(budgets.map((b) => [`EXPLORER_${b}`, '1000000'])), CHAIN_API_CSV_EXPORTS_PER_IP: '1000000' },
            contracts: { wnative: `0x${'a1'.repeat(20)}`, stable: `0x${'a2'.repeat(20)}`, factory: `0x${'a3'.repeat(20)}`, router: `0x${'a4'.repeat(20)}` },
        })
        session = (await verifiedAccount(stack)).token
        const db = new Client({ connectionString: stack.databaseUrl })
        await db.connect()
        try {
            for (let n = 1; n <= 3; n++) {
                await db.query(
                    `INSERT INTO block (id, number, parent_hash, timestamp, miner, gas_used, gas_limit, size, difficulty, nonce, extra_data,
                                        transaction_count, transaction_fees, burnt_fees)
                     VALUES ($1, $2, $3, now(), $4, 0, 30000000, 500, 0, '0x', '0x', 0, 0, 0)`,
                    [blockHash(n), n, blockHash(n - 1), miner],
                )
            }
            await db.query(
                `INSERT INTO address (id, balance, balance_block, is_contract, transaction_count, token_transfer_count, gas_used, log_count, first_block, last_block)
                 VALUES ($1, 10, 1, false, 0, 0, 0, 0, 1, 3)`,
                [miner],
            )
            await db.query(
                `INSERT INTO token (id, type, name, symbol, decimals, total_supply, holder_count, transfer_count, first_block)
                 VALUES ($1, 'ERC-20', 'Token', 'TKN', 18, 1000, 1, 0, 1)`,
                [token],
            )
            await db.query('INSERT INTO token_balance (id, token, holder, value) VALUES ($1, $2, $3, 1000)', [`${token}-${holder}`, token, holder])
        } finally {
            await db.end()
        }
    })

    after(async () => {
        await stack?.stop()
    })

    it('answers every generated request as its document says: no 5xx, documented statuses and bodies', async () => {
        const report = await fuzzApi({
            baseUrl: stack!.api.explorerUrl,
            seed: settings.seed,
            runs: settings.runs,
            replay: settings.replay,
            headers: { authorization: `Bearer ${session}` },
            // This stack has no node, so /ready rightly answers its documented 503 (test/common/operations.test.ts covers it).
            skip: ['GET /ready'],
            values: {
                hash: [miner, holder, token, blockHash(2)],
                address: [miner, holder],
                block: ['1', '2', '3', blockHash(1)],
                // This chain's id, so the DEX pools routes (/api/v1/chains/{chainId}/...) answer beyond their 404.
                chainId: ['3009', '1'],
                // The CSV exports: a known address and a period around the blocks above (mined now).
                address_id: [miner, holder],
                from_period: [new Date(Date.now() - 86_400_000).toISOString()],
                to_period: [new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)],
                // The stats service's lines (/api/v1/lines/{name}): known ids reach the charts, not only their 404.
                name: ['newTxns', 'activeAccounts', 'nativeCoinSupply', 'txnsGrowth', 'averageGasPrice'],
                from: ['2026-01-01', new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10)],
                to: [new Date().toISOString().slice(0, 10)],
            },
        })
        if (settings.verbose) console.log(describeCoverage(report))
        expect(report.failures.length, describeFailures(report)).to.equal(0)
        if (settings.replay) return
        expect(report.operations.map((o) => o.key)).to.include.members(['GET /api/docs/openapi.json', 'GET /api/v2/advanced-filters', 'GET /api/v2/advanced-filters/methods'])
        expect(report.statuses[200], 'valid requests answered 200').to.be.greaterThan(0)
    })
})
