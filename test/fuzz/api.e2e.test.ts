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
    const [nft, multi] = [`0x${'ab'.repeat(20)}`, `0x${'ac'.repeat(20)}`]
    const nftTransaction = `0x${'cd'.repeat(32)}`
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
            // An ERC-721 transfer and a two-id ERC-1155 TransferBatch in one transaction, for the Etherscan-style token lists.
            for (const [id, type] of [[nft, 'ERC-721'], [multi, 'ERC-1155']]) {
                await db.query(
                    `INSERT INTO token (id, type, name, symbol, decimals, total_supply, holder_count, transfer_count, first_block)
                     VALUES ($1, $2, 'NFT', 'NFT', NULL, NULL, 1, 1, 2)`,
                    [id, type],
                )
            }
            await db.query(
                `INSERT INTO transaction (id, block_number, block_hash, timestamp, index, "from", "to", value, nonce, gas_limit, gas_used,
                                          effective_gas_price, fee, status, input, log_count, token_transfer_count)
                 VALUES ($1, 2, $2, now(), 0, $3, $4, 0, 0, 100000, 60000, 1, 60000, 1, '\\x2eb2c2d6', 2, 3)`,
                [nftTransaction, blockHash(2), miner, multi],
            )
            const transfers: [string, string, string, string, string, string | null, number | null][] = [
                ['0000000002-000000', nft, 'ERC-721', miner, holder, '5', null],
                ['0000000002-000001-000000', multi, 'ERC-1155', holder, miner, '1', 0],
                ['0000000002-000001-000001', multi, 'ERC-1155', holder, miner, '2', 1],
            ]
            for (const [id, tokenAddress, type, from, to, tokenId, batchIndex] of transfers) {
                await db.query(
                    `INSERT INTO token_transfer (id, block_number, block_hash, timestamp, log_index, transaction_hash, token, token_type, "from", "to", value, token_id, batch_index)
                     VALUES ($1, 2, $2, now(), $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
                    [id, blockHash(2), Number(id.slice(11, 17)), nftTransaction, tokenAddress, type, from, to, type === 'ERC-721' ? null : '3', tokenId, batchIndex],
                )
            }
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

    it('reaches the Etherscan-style token lists (tokentx, tokennfttx, token1155tx) over real rows: no 5xx, documented answers', async () => {
        // GET /api is one operation for every action: here its requests go mostly to the token lists, with the rows' addresses.
        const document = await (await fetch(`${stack!.api.explorerUrl}/api/docs/openapi.json`)).json() as { paths: Record<string, object> }
        const methods = ['get', 'post', 'put', 'patch', 'delete']
        const others = Object.entries(document.paths)
            .flatMap(([path, ops]) => Object.keys(ops).filter((m) => methods.includes(m)).map((m) => `${m.toUpperCase()} ${path}`))
            .filter((key) => key !== 'GET /api')
        const report = await fuzzApi({
            baseUrl: stack!.api.explorerUrl,
            document,
            seed: settings.seed,
            runs: settings.runs,
            replay: settings.replay?.operation === 'GET /api' ? settings.replay : undefined,
            skip: others,
            values: {
                module: ['account'],
                action: ['tokentx', 'tokennfttx', 'token1155tx'],
                address: [miner, holder],
                contractaddress: [token, nft, multi],
            },
        })
        expect(report.failures.length, describeFailures(report)).to.equal(0)
        if (settings.replay) return
        expect(report.operations.map((o) => o.key)).to.deep.equal(['GET /api'])
        expect(report.byOperation['GET /api']?.[200], 'requests answered 200').to.be.greaterThan(0)
    })
})
