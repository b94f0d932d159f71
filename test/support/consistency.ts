import { expect } from 'chai'
import { Client } from 'pg'
import { createPublicClient, http, parseAbi, PublicClient } from 'viem'

const ERC20 = parseAbi(['function balanceOf(address) view returns (uint256)'])
const PAIR = parseAbi(['function getReserves() view returns (uint112, uint112, uint32)'])
const SWAP_TOPIC = '0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822'

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
                   COALESCE((SELECT sum(volume) FROM swap s WHERE s.pair = p.id), 0)::text AS from_swaps,
                   (SELECT count(*)::int FROM swap s WHERE s.pair = p.id) AS swap_rows,
                   COALESCE((SELECT sum(volume) FROM pair_hour h WHERE h.pair = p.id), 0)::text AS from_hours,
                   COALESCE((SELECT sum(swaps) FROM pair_hour h WHERE h.pair = p.id), 0)::int AS hour_swaps
            FROM pair p`)
        for (const p of perPair) {
            expect([p.from_swaps, p.from_hours], `volume of ${p.id}`).to.deep.equal([p.total, p.total])
            expect([p.swap_rows, p.hour_swaps], `swaps of ${p.id}`).to.deep.equal([p.swaps, p.swaps])
        }
        const days = await rows(db, `
            SELECT d.id, d.volume::text AS volume, d.swaps, s.volume::text AS actual_volume, s.swaps AS actual_swaps
            FROM daily_volume d FULL JOIN (
                SELECT to_char(timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, sum(volume) AS volume, count(*)::int AS swaps
                FROM swap GROUP BY 1
            ) s ON s.day = d.id`)
        for (const d of days) expect([d.volume, d.swaps], `daily volume ${d.id}`).to.deep.equal([d.actual_volume, d.actual_swaps])

        const [counters] = await rows(db, 'SELECT * FROM chain_counters')
        const [actual] = await rows(db, `SELECT
            (SELECT count(*)::int FROM block) AS blocks, (SELECT count(*)::int FROM transaction) AS transactions,
            (SELECT count(*)::int FROM address) AS addresses, (SELECT count(*)::int FROM token_transfer) AS token_transfers`)
        const { blocks: b, transactions: t, addresses: a, token_transfers: tt } = counters
        expect({ blocks: b, transactions: t, addresses: a, token_transfers: tt }, 'counters').to.deep.equal(actual)
        expect(counters.last_block).to.equal(head)
        expect(new Date(counters.last_block_timestamp).getTime()).to.equal(Number(blocks[head].timestamp) * 1000)
        expect(counters.average_block_time, 'average block time').to.be.greaterThan(0)
    } finally {
        await db.end()
    }
}
