import { expect } from 'chai'
import { Client } from 'pg'
import { createPublicClient, encodeFunctionData, http, parseAbi, PublicClient } from 'viem'

const ERC20 = parseAbi(['function balanceOf(address) view returns (uint256)'])
const PAIR = parseAbi(['function getReserves() view returns (uint112, uint112, uint32)'])
const SWAP_TOPIC = '0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822'
const MINT_TOPIC = '0x4c209b5fc8ad50758f13e2e1088ba56a560dff690a1c6fef26394f4c03821c4f'
const BURN_TOPIC = '0xdccd412f0b1252819cb1fd330b93224ca42612892bb3f4f789976e6d81936496'
const SUPPLY = parseAbi(['function totalSupply() view returns (uint256)'])

export function batchingClient(rpcUrl: string): PublicClient {
    return createPublicClient({ transport: http(rpcUrl, { batch: { batchSize: 200 } }) }) as PublicClient
}

async function rows<T = any>(db: Client, sql: string, params: unknown[] = []): Promise<T[]> {
    return (await db.query(sql, params)).rows
}

/**
 * Checks the indexed database against the chain as it is now (the chain must be idle): blocks and
 * their hashes, transaction and log counts, every holder balance and holder count, native
 * balances, reserves, swaps and the DeFi aggregates, and the running counters.
 */
export async function expectDatabaseMatchesChain(databaseUrl: string, rpcUrl: string): Promise<void> {
    const chain = batchingClient(rpcUrl)
    const db = new Client({ connectionString: databaseUrl })
    await db.connect()
    try {
        const head = Number(await chain.getBlockNumber())
        const blocks = await Promise.all(
            Array.from({ length: head + 1 }, (_, n) => chain.getBlock({ blockNumber: BigInt(n) }))
        )
        const indexed = await rows(db, 'SELECT number, id, transaction_count FROM block ORDER BY number')
        expect(indexed.map((b) => b.id), 'block hashes').to.deep.equal(blocks.map((b) => b.hash))
        expect(indexed.map((b) => b.transaction_count), 'transactions per block')
            .to.deep.equal(blocks.map((b) => b.transactions.length))

        const txHashes = blocks.flatMap((b) => b.transactions as string[])
        const txRows = await rows(db, 'SELECT id FROM transaction ORDER BY block_number, index')
        expect(txRows.map((t) => t.id), 'transactions').to.deep.equal(txHashes)
        await expectTransactionTypesMatchNode(db, chain, blocks)
        await expectSelfDestructsMatchNode(db, chain)

        const logs = await chain.getLogs({ fromBlock: 0n, toBlock: BigInt(head) })
        const [{ count: logCount }] = await rows(db, 'SELECT count(*)::int AS count FROM log')
        expect(logCount, 'logs').to.equal(logs.length)

        // Every address that ever held or moved a token, checked against balanceOf.
        const holders = await rows<{ token: string; holder: string; value: string | null }>(db, `
            SELECT p.token, p.holder, b.value FROM (
                SELECT token, "from" AS holder FROM token_transfer UNION SELECT token, "to" FROM token_transfer
            ) p LEFT JOIN token_balance b ON b.token = p.token AND b.holder = p.holder
            JOIN token t ON t.id = p.token AND t.type = 'ERC-20'
            WHERE p.holder <> '0x0000000000000000000000000000000000000000'`)
        const onChain = await Promise.all(holders.map((h) =>
            chain.readContract({ address: h.token as `0x${string}`, abi: ERC20, functionName: 'balanceOf', args: [h.holder as `0x${string}`] })))
        const mismatches = holders
            .map((h, i) => ({ ...h, indexed: BigInt(h.value ?? 0), chain: onChain[i] }))
            .filter((h) => h.indexed !== h.chain)
        expect(mismatches, 'token balances').to.deep.equal([])
        const holderCounts = await rows(db, `
            SELECT t.id, t.holder_count, (SELECT count(*)::int FROM token_balance b WHERE b.token = t.id AND b.value > 0) AS actual
            FROM token t`)
        for (const t of holderCounts) expect(t.holder_count, `holder count of ${t.id}`).to.equal(t.actual)

        const addresses = await rows<{ id: string; balance: string }>(db, 'SELECT id, balance FROM address')
        const balances = await Promise.all(addresses.map((a) => chain.getBalance({ address: a.id as `0x${string}` })))
        const wrongBalances = addresses.filter((a, i) => BigInt(a.balance) !== balances[i])
        expect(wrongBalances, 'native balances').to.deep.equal([])

        const pairs = await rows(db, 'SELECT id, reserve0, reserve1, volume_total, swaps_total FROM pair')
        for (const pair of pairs) {
            const [r0, r1] = await chain.readContract({ address: pair.id, abi: PAIR, functionName: 'getReserves' })
            expect([BigInt(pair.reserve0), BigInt(pair.reserve1)], `reserves of ${pair.id}`).to.deep.equal([r0, r1])
        }
        const pairIds = new Set(pairs.map((p) => p.id))
        const swapLogs = logs.filter((l) => l.topics[0] === SWAP_TOPIC && pairIds.has(l.address.toLowerCase()))
        const [{ count: swapCount }] = await rows(db, 'SELECT count(*)::int AS count FROM swap')
        expect(swapCount, 'swaps').to.equal(swapLogs.length)
        const perPair = await rows(db, `
            SELECT p.id, p.volume_total::text AS total, p.swaps_total AS swaps,
                   COALESCE((SELECT sum(volume) FROM swap s WHERE s.pair_id = p.id), 0)::text AS from_swaps,
                   (SELECT count(*)::int FROM swap s WHERE s.pair_id = p.id) AS swap_rows,
                   COALESCE((SELECT sum(volume) FROM pair_hour_data h WHERE h.pair_id = p.id), 0)::text AS from_hours,
                   COALESCE((SELECT sum(swaps) FROM pair_hour_data h WHERE h.pair_id = p.id), 0)::int AS hour_swaps
            FROM pair p`)
        for (const p of perPair) {
            expect([p.from_swaps, p.from_hours], `volume of ${p.id}`).to.deep.equal([p.total, p.total])
            expect([p.swap_rows, p.hour_swaps], `swaps of ${p.id}`).to.deep.equal([p.swaps, p.swaps])
        }
        const days = await rows(db, `
            SELECT d.id, d.volume::text AS volume, d.swaps, COALESCE(s.volume, 0)::text AS actual_volume, COALESCE(s.swaps, 0) AS actual_swaps
            FROM dex_day_data d FULL JOIN (
                SELECT to_char(timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, sum(volume) AS volume, count(*)::int AS swaps
                FROM swap GROUP BY 1
            ) s ON s.day = d.id`)
        for (const d of days) expect([d.volume, d.swaps], `daily volume ${d.id}`).to.deep.equal([d.actual_volume, d.actual_swaps])
        await expectDefiEntitiesConsistent(db, chain, logs, pairIds)

        await expectCallTreesMatchNode(db, rpcUrl, txHashes)
        await expectProxiesMatchNode(db, rpcUrl, head)
        await expectNftsMatchNode(db, rpcUrl, head)
        await expectCoinHistoryMatchesNode(db, chain)

        const [counters] = await rows(db, 'SELECT * FROM chain_counters')
        const [actual] = await rows(db, `SELECT
            (SELECT count(*)::int FROM block) AS blocks, (SELECT count(*)::int FROM transaction) AS transactions,
            (SELECT count(*)::int FROM address) AS addresses, (SELECT count(*)::int FROM token_transfer) AS token_transfers,
            (SELECT COALESCE(sum(balance), 0)::text FROM address) AS coin_supply`)
        const { blocks: b, transactions: t, addresses: a, token_transfers: tt, coin_supply: cs } = counters
        expect({ blocks: b, transactions: t, addresses: a, token_transfers: tt, coin_supply: cs }, 'counters').to.deep.equal(actual)
        await expectStatsAggregatesMatchRows(db)
        expect(counters.last_block).to.equal(head)
        expect(new Date(counters.last_block_timestamp).getTime()).to.equal(Number(blocks[head].timestamp) * 1000)
        // The indexer's moving average, rounded once per batch, against the same average over the
        // chain's own timestamps, rounded once: equal but for the roundings (a chain mined within one
        // second has an average of 0, which is right).
        const exact = exactBlockTimeAverage(blocks.map((b) => Number(b.timestamp) * 1000))
        expect(Math.abs(Number(counters.average_block_time) - exact), `average block time ${counters.average_block_time} vs ${exact}`).to.be.at.most(5 + exact / 100)
    } finally {
        await db.end()
    }
}

const DAY_OF = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`

/**
 * The stats lines' aggregates (docs/stats-api.md) against the rows they count: per day the blocks'
 * sizes, the gas prices, distinct and first-time senders and the contracts created; per ISO week
 * the distinct senders; the sender facts and the coin holder count. After a reorg, what the
 * orphaned blocks added must be gone from each.
 */
async function expectStatsAggregatesMatchRows(db: Client): Promise<void> {
    const kept = await rows(db, `SELECT id, block_size::text, gas_price::text, active_accounts, new_accounts, new_contracts
                                   FROM daily_chain_activity WHERE blocks > 0 ORDER BY id`)
    const actual = await rows(db, `
        WITH blocks AS (SELECT ${DAY_OF('timestamp')} AS id, sum(size)::text AS block_size FROM block GROUP BY 1),
             txs AS (SELECT ${DAY_OF('timestamp')} AS id, sum(effective_gas_price) AS gas_price, count(DISTINCT "from")::int AS active FROM transaction GROUP BY 1),
             firsts AS (SELECT day AS id, count(*)::int AS n FROM (SELECT "from", min(${DAY_OF('timestamp')}) AS day FROM transaction GROUP BY 1) f GROUP BY 1),
             -- A transaction's own creation is also its call tree's top frame: each (transaction, contract) once.
             created AS (SELECT id, count(*)::int AS n FROM (
                 SELECT ${DAY_OF('timestamp')} AS id, id AS tx, created_contract FROM transaction WHERE created_contract IS NOT NULL AND status = 1
                 UNION SELECT ${DAY_OF('timestamp')}, transaction_hash, created_contract FROM internal_transaction WHERE created_contract IS NOT NULL AND error IS NULL) c GROUP BY 1)
        SELECT b.id, b.block_size, COALESCE(t.gas_price, 0)::text AS gas_price, COALESCE(t.active, 0) AS active_accounts,
               COALESCE(f.n, 0) AS new_accounts, COALESCE(c.n, 0) AS new_contracts
          FROM blocks b LEFT JOIN txs t USING (id) LEFT JOIN firsts f USING (id) LEFT JOIN created c USING (id) ORDER BY b.id`)
    expect(kept, 'per-day stats aggregates').to.deep.equal(actual)
    const weeks = await rows(db, 'SELECT id, active_accounts_week AS n FROM daily_chain_activity WHERE active_accounts_week > 0 ORDER BY id')
    const actualWeeks = await rows(db, `SELECT to_char(date_trunc('week', timestamp AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS id, count(DISTINCT "from")::int AS n
                                          FROM transaction GROUP BY 1 ORDER BY 1`)
    expect(weeks, 'distinct senders per week').to.deep.equal(actualWeeks)
    const [facts] = await rows(db, `SELECT
        (SELECT count(*)::int FROM account_activity WHERE id LIKE 'A:%') AS ever,
        (SELECT count(*)::int FROM account_activity WHERE id LIKE 'D:%') AS days,
        (SELECT count(DISTINCT "from")::int FROM transaction) AS senders,
        (SELECT count(*)::int FROM (SELECT DISTINCT ${DAY_OF('timestamp')}, "from" FROM transaction) d) AS sender_days,
        (SELECT coin_holders FROM chain_counters WHERE id = 'chain') AS holders,
        (SELECT count(*)::int FROM address WHERE balance > 0) AS actual_holders`)
    expect([facts.ever, facts.days], 'sender facts (ever, per day)').to.deep.equal([facts.senders, facts.sender_days])
    expect(facts.holders, 'coin holders').to.equal(facts.actual_holders)
}

/**
 * The DeFi entities (docs/indexer.md#defi-entities) against the chain's events and each other:
 * mints and burns equal the pairs' events, LP supply equals the chain's, every swap's trade exists
 * and counts it, day data equal their sums over swaps and trades, and no row refers to a missing one.
 */
async function expectDefiEntitiesConsistent(db: Client, chain: PublicClient, logs: { topics: string[]; address: string }[], pairIds: Set<string>): Promise<void> {
    const ofPairs = (topic: string) => logs.filter((l) => l.topics[0] === topic && pairIds.has(l.address.toLowerCase())).length
    const [counts] = await rows(db, 'SELECT (SELECT count(*)::int FROM mint) AS mints, (SELECT count(*)::int FROM burn) AS burns')
    expect(counts, 'mints and burns').to.deep.equal({ mints: ofPairs(MINT_TOPIC), burns: ofPairs(BURN_TOPIC) })
    for (const pair of await rows(db, 'SELECT id, total_supply::text FROM pair')) {
        const supply = await chain.readContract({ address: pair.id, abi: SUPPLY, functionName: 'totalSupply' })
        expect(pair.total_supply, `LP supply of ${pair.id}`).to.equal(supply.toString())
    }
    const [orphans] = await rows(db, `SELECT
        (SELECT count(*)::int FROM swap s WHERE NOT EXISTS (SELECT 1 FROM trade t WHERE t.id = s.trade_id)) AS swaps_without_trade,
        (SELECT count(*)::int FROM trade t WHERE t.hops <> (SELECT count(*) FROM swap s WHERE s.trade_id = t.id)) AS trades_with_other_hops,
        (SELECT count(*)::int FROM swap s WHERE NOT EXISTS (SELECT 1 FROM pair p WHERE p.id = s.pair_id)) AS swaps_without_pair,
        (SELECT count(*)::int FROM pair p WHERE NOT EXISTS (SELECT 1 FROM token t WHERE t.id = p.token0_id) OR NOT EXISTS (SELECT 1 FROM token t WHERE t.id = p.token1_id)) AS pairs_without_token,
        (SELECT count(*)::int FROM trade x WHERE NOT EXISTS (SELECT 1 FROM token t WHERE t.id = x.token_in_id) OR NOT EXISTS (SELECT 1 FROM token t WHERE t.id = x.token_out_id)) AS trades_without_token,
        (SELECT count(*)::int FROM (SELECT pair_id FROM mint UNION ALL SELECT pair_id FROM burn UNION ALL SELECT pair_id FROM pair_hour_data UNION ALL SELECT pair_id FROM pair_day_data) r
            WHERE NOT EXISTS (SELECT 1 FROM pair p WHERE p.id = r.pair_id)) AS rows_without_pair,
        (SELECT count(*)::int FROM token_day_data d WHERE NOT EXISTS (SELECT 1 FROM token t WHERE t.id = d.token_id)) AS days_without_token`)
    expect(orphans, 'DeFi rows referring to missing rows').to.deep.equal({
        swaps_without_trade: 0, trades_with_other_hops: 0, swaps_without_pair: 0, pairs_without_token: 0,
        trades_without_token: 0, rows_without_pair: 0, days_without_token: 0,
    })
    const day = `to_char(timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD')`
    const wrongDays = await rows(db, `
        SELECT 'pair' AS kind, d.id FROM pair_day_data d LEFT JOIN (
            SELECT pair_id || '-' || ${day} AS id, sum(volume) AS volume, count(*)::int AS swaps FROM swap GROUP BY 1
        ) s ON s.id = d.id WHERE (d.volume_quote, d.swaps) IS DISTINCT FROM (COALESCE(s.volume, 0), COALESCE(s.swaps, 0))
        UNION ALL
        SELECT 'dex', d.id FROM dex_day_data d LEFT JOIN (
            SELECT ${day} AS id, sum(volume_quote) AS volume, count(*)::int AS trades FROM trade GROUP BY 1
        ) t ON t.id = d.id WHERE (d.trade_volume_quote, d.trades) IS DISTINCT FROM (COALESCE(t.volume, 0), COALESCE(t.trades, 0))
        UNION ALL
        SELECT 'token', d.id FROM token_day_data d LEFT JOIN (
            SELECT token || '-' || ${day} AS id, count(*)::int AS swaps FROM (
                SELECT p.token0_id AS token, s.timestamp FROM swap s JOIN pair p ON p.id = s.pair_id
                UNION ALL SELECT p.token1_id, s.timestamp FROM swap s JOIN pair p ON p.id = s.pair_id
            ) h GROUP BY 1
        ) s ON s.id = d.id WHERE d.swaps <> COALESCE(s.swaps, 0)`)
    expect(wrongDays, 'day data that differ from their swaps and trades').to.deep.equal([])
    const missingDays = await rows(db, `
        SELECT pair_id || '-' || ${day} AS id FROM swap EXCEPT SELECT id FROM pair_day_data`)
    expect(missingDays, 'days with swaps but no pair day data').to.deep.equal([])
}

/** The storage slots of docs/indexer.md#proxies, spelled out here so the check does not lean on the indexer's code. */
const PROXY_SLOT = {
    eip1967: '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc',
    beacon: '0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeab7ee2c2c8b8dd2cf2a1a9d',
    eip1822: '0xc5f16f0fcc639fa48a6947836d9850f504798523bf8c9a3a87d5876cf622bcf7',
    master_copy: '0x0',
} as const

/**
 * Every detected proxy's implementation equals what the node holds for it at `block` (the indexed
 * head): the slot of its kind, a beacon proxy's beacon slot and that beacon's implementation(), a
 * minimal clone's code.
 */
const TYPE_NUMBER: Record<string, number> = { legacy: 0, eip2930: 1, eip1559: 2, eip4844: 3, eip7702: 4 }

/**
 * Every transaction's type and type-specific fields, every block's blob gas, and every EIP-7702
 * delegation equal what the node reports (docs/indexer.md#transaction-types).
 */
async function expectTransactionTypesMatchNode(db: Client, chain: PublicClient, blocks: { number: bigint; blobGasUsed?: bigint; excessBlobGas?: bigint; transactions: unknown[] }[]): Promise<void> {
    const hashes = blocks.flatMap((b) => b.transactions as `0x${string}`[])
    const fromNode = await Promise.all(hashes.map((hash) => chain.getTransaction({ hash })))
    const receipts = await Promise.all(hashes.map((hash) => chain.getTransactionReceipt({ hash })))
    const stored = new Map((await rows(db, `SELECT id, type, chain_id::text, access_list, max_fee_per_blob_gas::text, blob_versioned_hashes,
        blob_gas_used::text, blob_gas_price::text, authorization_list FROM transaction`)).map((r) => [r.id, r]))
    const mismatches = fromNode.flatMap((tx, i) => {
        const row = stored.get(tx.hash)
        const blob = tx.type === 'eip4844'
        const expected = {
            type: TYPE_NUMBER[tx.type],
            // EIP-155: a legacy transaction signed with v = 27/28 carries no chain id.
            chain_id: tx.chainId === undefined ? null : String(tx.chainId),
            access_list: tx.type === 'legacy' ? null : (tx.accessList ?? []).map((e) => ({ address: e.address.toLowerCase(), storageKeys: e.storageKeys.map((k) => k.toLowerCase()) })),
            max_fee_per_blob_gas: tx.maxFeePerBlobGas === undefined ? null : String(tx.maxFeePerBlobGas),
            blob_versioned_hashes: tx.blobVersionedHashes ?? null,
            blob_gas_used: blob ? String(receipts[i].blobGasUsed) : null,
            blob_gas_price: blob ? String(receipts[i].blobGasPrice) : null,
            // The signed fields; the authority and status are derived (indexer/authorities.ts) and checked by the transaction-types test.
            authorization_list: tx.authorizationList?.map((a) => ({
                chainId: String(a.chainId), address: a.address.toLowerCase(), nonce: String(a.nonce), yParity: a.yParity, r: a.r.toLowerCase(), s: a.s.toLowerCase(),
            })) ?? null,
        }
        const actual = row && {
            type: row.type, chain_id: row.chain_id, access_list: row.access_list, max_fee_per_blob_gas: row.max_fee_per_blob_gas,
            blob_versioned_hashes: row.blob_versioned_hashes, blob_gas_used: row.blob_gas_used, blob_gas_price: row.blob_gas_price,
            authorization_list: row.authorization_list?.map((a: any) => ({ chainId: a.chainId, address: a.address, nonce: a.nonce, yParity: a.yParity, r: a.r, s: a.s })) ?? null,
        }
        return JSON.stringify(actual) === JSON.stringify(expected) ? [] : [{ hash: tx.hash, expected, actual }]
    })
    expect(mismatches, 'transaction types and their fields').to.deep.equal([])

    const blobGas = await rows(db, 'SELECT number, blob_gas_used::text, excess_blob_gas::text FROM block ORDER BY number')
    expect(blobGas.map((b) => [b.number, b.blob_gas_used, b.excess_blob_gas]), 'blob gas of blocks')
        .to.deep.equal(blocks.map((b) => [Number(b.number), b.blobGasUsed === undefined ? null : String(b.blobGasUsed), b.excessBlobGas === undefined ? null : String(b.excessBlobGas)]))

    // An EOA delegated by EIP-7702 has the code 0xef0100 || delegate.
    const delegated = await rows<{ id: string; delegated_to: string }>(db, 'SELECT id, delegated_to FROM address WHERE delegated_to IS NOT NULL ORDER BY id')
    const codes = await Promise.all(delegated.map((a) => chain.getCode({ address: a.id as `0x${string}` })))
    expect(delegated.map((a, i) => [a.id, codes[i]?.startsWith('0xef0100') ? '0x' + codes[i]!.slice(8).toLowerCase() : null]), 'EIP-7702 delegations')
        .to.deep.equal(delegated.map((a) => [a.id, a.delegated_to]))
}

/**
 * A contract created or self-destructed has no code exactly when the indexer says it self-destructed.
 * Without call trees no selfdestruct frame is seen (docs/indexer.md#self-destructed-contracts).
 */
async function expectSelfDestructsMatchNode(db: Client, chain: PublicClient): Promise<void> {
    const [{ tracing }] = await rows(db, 'SELECT tracing FROM chain_counters')
    if (tracing === 'none') return
    const marked = await rows<{ id: string; self_destructed: boolean }>(db, 'SELECT id, self_destructed FROM address WHERE self_destructed IS NOT NULL ORDER BY id')
    const markedCodes = await Promise.all(marked.map((a) => chain.getCode({ address: a.id as `0x${string}` })))
    expect(marked.map((a, i) => [a.id, markedCodes[i] === undefined]), 'self-destructed contracts')
        .to.deep.equal(marked.map((a) => [a.id, a.self_destructed]))
}

export async function expectProxiesMatchNode(db: Client, rpcUrl: string, block: number): Promise<void> {
    const proxies = await rows<{ id: string; proxy_type: string; implementation: string; beacon: string | null }>(db, 'SELECT id, proxy_type, implementation, beacon FROM proxy_contract ORDER BY id')
    const tag = '0x' + block.toString(16)
    const word = (w: string) => '0x' + w.slice(-40).toLowerCase()
    const read = async (p: (typeof proxies)[number]): Promise<{ implementation: string; beacon: string | null }> => {
        switch (p.proxy_type) {
            case 'eip1167': {
                const [code] = await rpc<string>(rpcUrl, [{ method: 'eth_getCode', params: [p.id, tag] }])
                return { implementation: '0x' + code.slice(22, 62), beacon: null }
            }
            case 'eip1967_beacon': {
                const [beaconWord] = await rpc<string>(rpcUrl, [{ method: 'eth_getStorageAt', params: [p.id, PROXY_SLOT.beacon, tag] }])
                const beacon = word(beaconWord)
                const [answer] = await rpc<string>(rpcUrl, [{ method: 'eth_call', params: [{ to: beacon, data: '0x5c60da1b' }, tag] }])
                return { implementation: word(answer), beacon }
            }
            default: {
                const slot = PROXY_SLOT[p.proxy_type as 'eip1967' | 'eip1822' | 'master_copy']
                expect(slot, `kind of proxy ${p.id}`).to.be.a('string')
                const [value] = await rpc<string>(rpcUrl, [{ method: 'eth_getStorageAt', params: [p.id, slot, tag] }])
                return { implementation: word(value), beacon: null }
            }
        }
    }
    for (const p of proxies) {
        expect({ implementation: p.implementation, beacon: p.beacon }, `proxy ${p.id} (${p.proxy_type})`).to.deep.equal(await read(p))
    }
}

const NFT = parseAbi(['function ownerOf(uint256) view returns (address)', 'function balanceOf(address, uint256) view returns (uint256)'])
const ZERO = '0x0000000000000000000000000000000000000000'

/**
 * NFT ownership (docs/indexer.md#nfts) against the node at `block`: every ERC-721 instance's owner
 * equals ownerOf (the zero address where it reverts: burnt), every ERC-1155 balance row equals
 * balanceOf and is positive, every (id, holder) an ERC-1155 transfer touched without a row holds 0,
 * and the instance and transfer counts equal the rows they count.
 */
export async function expectNftsMatchNode(db: Client, rpcUrl: string, block: number): Promise<void> {
    const tag = '0x' + block.toString(16)
    const call = (to: string, data: string) => ({ method: 'eth_call', params: [{ to, data }, tag] })
    const owners = await rows<{ token: string; token_id: string; owner: string }>(db, `
        SELECT i.token, i.token_id::text, i.owner FROM token_instance i JOIN token t ON t.id = i.token AND t.type = 'ERC-721' ORDER BY i.id`)
    const ownerAnswers = await rpcAnswers(rpcUrl, owners.map((o) => call(o.token, encodeFunctionData({ abi: NFT, functionName: 'ownerOf', args: [BigInt(o.token_id)] }))))
    const wrongOwners = owners
        .map((o, i) => ({ ...o, chain: ownerAnswers[i] === undefined ? ZERO : '0x' + ownerAnswers[i]!.slice(-40).toLowerCase() }))
        .filter((o) => o.owner !== o.chain)
    expect(wrongOwners, 'ERC-721 owners').to.deep.equal([])

    const holdings = await rows<{ token: string; token_id: string; holder: string; value: string | null }>(db, `
        SELECT p.token, p.token_id::text, p.holder, b.value::text FROM (
            SELECT token, token_id, "from" AS holder FROM token_transfer WHERE token_type = 'ERC-1155'
            UNION SELECT token, token_id, "to" FROM token_transfer WHERE token_type = 'ERC-1155'
            UNION SELECT token, token_id, holder FROM nft_balance
        ) p LEFT JOIN nft_balance b ON b.token = p.token AND b.token_id = p.token_id AND b.holder = p.holder
        WHERE p.holder <> '${ZERO}' ORDER BY 1, 2, 3`)
    const balanceAnswers = await rpcAnswers(rpcUrl, holdings.map((h) =>
        call(h.token, encodeFunctionData({ abi: NFT, functionName: 'balanceOf', args: [h.holder as `0x${string}`, BigInt(h.token_id)] }))))
    const wrongBalances = holdings
        .map((h, i) => ({ ...h, chain: BigInt(balanceAnswers[i] ?? -1).toString() }))
        .filter((h) => (h.value ?? '0') !== h.chain || h.value === '0')
    expect(wrongBalances, 'ERC-1155 balances').to.deep.equal([])

    const counts = await rows(db, `
        SELECT i.id, i.transfer_count, (SELECT count(*)::int FROM token_transfer tt WHERE tt.token = i.token AND tt.token_id = i.token_id) AS actual
          FROM token_instance i`)
    for (const c of counts) expect(c.transfer_count, `transfers of instance ${c.id}`).to.equal(c.actual)
    const instances = await rows(db, 'SELECT t.id, t.instance_count, (SELECT count(*)::int FROM token_instance i WHERE i.token = t.id) AS actual FROM token t')
    for (const t of instances) expect(t.instance_count, `instances of ${t.id}`).to.equal(t.actual)
}

/** eth_call answers in batches of 100, a revert answering undefined. */
async function rpcAnswers(rpcUrl: string, calls: { method: string; params: unknown[] }[]): Promise<(string | undefined)[]> {
    const results: (string | undefined)[] = []
    for (let i = 0; i < calls.length; i += 100) {
        const body = calls.slice(i, i + 100).map((c, n) => ({ jsonrpc: '2.0', id: n, ...c }))
        const answers = await (await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as any[]
        answers.sort((a, b) => a.id - b.id)
        for (const a of answers) {
            if (a.error && !/revert/i.test(a.error.message)) throw new Error(`${body[a.id].method}: ${a.error.message}`)
            results.push(a.error ? undefined : a.result)
        }
    }
    return results
}

async function rpc<T = any>(rpcUrl: string, calls: { method: string; params: unknown[] }[]): Promise<T[]> {
    const results: T[] = []
    for (let i = 0; i < calls.length; i += 100) {
        const body = calls.slice(i, i + 100).map((c, n) => ({ jsonrpc: '2.0', id: n, ...c }))
        const answers = await (await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as any[]
        answers.sort((a, b) => a.id - b.id)
        for (const a of answers) {
            if (a.error) throw new Error(`${body[a.id].method}: ${a.error.message}`)
            results.push(a.result)
        }
    }
    return results
}

/** A stored frame as the node's trace_transaction shows it (Parity format), for comparison. */
function frameOfNode(f: any) {
    const a = f.action
    const r = f.result ?? {}
    switch (f.type) {
        case 'call':
            return { type: a.callType, from: a.from, to: a.to, created: null, value: BigInt(a.value ?? 0).toString(), gas: BigInt(a.gas).toString(), gasUsed: r.gasUsed === undefined ? null : BigInt(r.gasUsed).toString(), input: a.input, output: r.output ?? null, error: f.error ?? null, traceAddress: f.traceAddress }
        case 'create':
            return { type: a.creationMethod === 'create2' ? 'create2' : 'create', from: a.from, to: null, created: r.address ?? null, value: BigInt(a.value ?? 0).toString(), gas: BigInt(a.gas).toString(), gasUsed: r.gasUsed === undefined ? null : BigInt(r.gasUsed).toString(), input: a.init, output: r.code ?? null, error: f.error ?? null, traceAddress: f.traceAddress }
        default:
            return { type: 'selfdestruct', from: a.address, to: a.refundAddress, created: null, value: BigInt(a.balance).toString(), gas: null, gasUsed: null, input: null, output: null, error: f.error ?? null, traceAddress: f.traceAddress }
    }
}

/**
 * Every transaction's stored call tree equals the node's own trace of it (trace_transaction),
 * frame by frame and in order, and nothing else is stored.
 */
export async function expectCallTreesMatchNode(db: Client, rpcUrl: string, txHashes: string[]): Promise<void> {
    const traces = await rpc<any[]>(rpcUrl, txHashes.map((h) => ({ method: 'trace_transaction', params: [h] })))
    const stored = await rows(db, `
        SELECT transaction_hash, type, "from", "to", created_contract AS created, value::text, gas::text, gas_used::text AS "gasUsed",
               '0x' || encode(input, 'hex') AS input, '0x' || encode(output, 'hex') AS output, error, trace_address AS "traceAddress"
          FROM internal_transaction ORDER BY id`)
    const byTx = new Map<string, any[]>()
    for (const row of stored) {
        const { transaction_hash: hash, ...frame } = row
        if (frame.input === '0x' && frame.type === 'selfdestruct') frame.input = null
        if (!byTx.has(hash)) byTx.set(hash, [])
        byTx.get(hash)!.push(frame)
    }
    const normalise = (f: any) => ({ ...f, input: f.input ?? null, output: f.output === '0x' && f.error ? null : f.output })
    const mismatches: string[] = []
    txHashes.forEach((hash, i) => {
        const expected = traces[i].map(frameOfNode).map(normalise)
        const actual = (byTx.get(hash) ?? []).map(normalise)
        try {
            expect(actual).to.deep.equal(expected)
        } catch {
            mismatches.push(`${hash}: stored ${JSON.stringify(actual).slice(0, 400)} node ${JSON.stringify(expected).slice(0, 400)}`)
        }
        byTx.delete(hash)
    })
    expect(mismatches, 'call trees that differ from the node\'s trace').to.deep.equal([])
    expect([...byTx.keys()], 'call trees of transactions that are not on the chain').to.deep.equal([])

    // A failed transaction's error and revert data are its top-level frame's (docs/indexer.md#revert-data).
    const reverts = new Map((await rows(db, `SELECT id, error, '0x' || encode(revert_data, 'hex') AS revert_data FROM transaction`)).map((r) => [r.id, r]))
    const wrongReverts = txHashes.flatMap((hash, i) => {
        const top = traces[i].find((f: any) => f.traceAddress.length === 0)
        const error = top?.error ?? null
        const expected = { error, revert_data: error !== null && /revert/i.test(error) ? top.result?.output ?? '0x' : null }
        const row = reverts.get(hash)
        const actual = row && { error: row.error, revert_data: row.revert_data }
        return JSON.stringify(actual) === JSON.stringify(expected) ? [] : [{ hash, expected, actual }]
    })
    expect(wrongReverts, 'errors and revert data of transactions').to.deep.equal([])
}

/**
 * Every point of the native balance history equals the node's balance at its block, the one before
 * it (value − delta) equals the balance at the block before, and consecutive points chain (nothing
 * changed between them that the history missed). Every address whose balance differs from its
 * genesis balance has a history.
 */
export async function expectCoinHistoryMatchesNode(db: Client, chain: PublicClient): Promise<void> {
    // anvil keeps the state of recent blocks only (and none of those before a restart from its
    // state file): a point whose block state is gone is checked through its neighbours instead.
    const balanceAt = (address: string, block: number) => chain.getBalance({ address: address as `0x${string}`, blockNumber: BigInt(block) })
        .catch((err) => {
            if (/BlockOutOfRange|not found|state/i.test(String(err?.message))) return undefined
            throw err
        })
    const points = await rows<{ address: string; block_number: number; value: string; delta: string }>(db,
        'SELECT address, block_number, value::text, delta::text FROM coin_balance ORDER BY id')
    const at = await Promise.all(points.map((p) => balanceAt(p.address, p.block_number)))
    const before = await Promise.all(points.map((p) => balanceAt(p.address, p.block_number - 1)))
    const checked = points.filter((_, i) => at[i] !== undefined).length
    expect(checked === 0 && points.length > 0, 'the node holds the state of no balance-history point').to.equal(false)
    const wrong = points
        .map((p, i) => ({ ...p, node: at[i]?.toString(), nodeBefore: before[i]?.toString() }))
        .filter((p) => (p.node !== undefined && p.node !== p.value) ||
            (p.nodeBefore !== undefined && BigInt(p.nodeBefore) !== BigInt(p.value) - BigInt(p.delta)))
    expect(wrong.slice(0, 5), `${wrong.length} of ${points.length} balance-history points differ from the node`).to.deep.equal([])
    const broken = points.filter((p, i) => i > 0 && points[i - 1].address === p.address && BigInt(p.value) - BigInt(p.delta) !== BigInt(points[i - 1].value))
    expect(broken.slice(0, 5), 'balance-history points that do not follow from the one before').to.deep.equal([])

    // The newest point of every address is its balance now; an address without points has the
    // balance it was born with (genesis), when the node still holds that state.
    const addresses = await rows<{ id: string; last: string | null }>(db, `
        SELECT a.id, (SELECT value::text FROM coin_balance c WHERE c.address = a.id ORDER BY c.id DESC LIMIT 1) AS last FROM address a`)
    const [now, genesis] = await Promise.all([
        Promise.all(addresses.map((a) => chain.getBalance({ address: a.id as `0x${string}` }))),
        Promise.all(addresses.map((a) => balanceAt(a.id, 0))),
    ])
    const missing = addresses
        .filter((a, i) => (a.last === null ? genesis[i] !== undefined && genesis[i] !== now[i] : BigInt(a.last) !== now[i]))
        .map((a) => a.id)
    expect(missing, 'addresses whose latest balance-history point is not their balance').to.deep.equal([])
}

/** The moving average of block intervals the indexer keeps (writer.ts averageBlockTime), computed over the whole chain at once. */
function exactBlockTimeAverage(timestamps: number[]): number {
    const smoothing = 2 / 101
    let average = 0
    for (let i = 1; i < timestamps.length; i++) {
        const interval = timestamps[i] - timestamps[i - 1]
        average = i === 1 ? interval : average + (interval - average) * smoothing
    }
    return average
}
