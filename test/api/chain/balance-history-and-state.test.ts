import { expect } from 'chai'
import { encodeFunctionData, parseAbi, parseEther, parseGwei } from 'viem'
import { abis } from '../../../abi'
import { Stack } from '../../support/stack'
import { checksum, expect404, expect422, getOk, stack, walk } from './helpers'
import * as S from './shapes'

const ERC20 = parseAbi(['function balanceOf(address) view returns (uint256)'])

describe('chain API: coin balance history and state changes', function () {
    this.timeout(600_000)
    let s: Stack

    before(async () => {
        s = await stack()
    })

    describe('/addresses/{h}/coin-balance-history', () => {
        it('walks an address\'s history to its end: one point per block that changed the balance, each equal to the node\'s balance there', async () => {
            // Two fresh accounts: 56 and 55 changes, more than a page each.
            const payer = s.account(40)
            const payee = s.account(41)
            await s.send(s.account(0), { to: payer.address, value: parseEther('1') })
            for (let i = 0; i < 55; i++) await s.send(payer, { to: payee.address, value: 1000n + BigInt(i) })
            for (const account of [payer, payee]) {
                const lower = account.address.toLowerCase()
                const { items, pages } = await walk(`/addresses/${account.address}/coin-balance-history`, S.CoinBalancePoint, { keys: ['block_number', 'items_count'], itemsCount: true })
                expect(pages, `${account.address}: more than a page`).to.equal(2)
                const { rows } = await s.db.query('SELECT block_number, value::text, delta::text, transaction_hash FROM coin_balance WHERE address = $1 ORDER BY block_number DESC', [lower])
                expect(items.map((i) => [i.block_number, i.value, i.delta, i.transaction_hash])).to.deep.equal(rows.map((r) => [r.block_number, r.value, r.delta, r.transaction_hash]))
                for (const item of items) {
                    const [at, before] = await Promise.all([
                        s.client.getBalance({ address: account.address, blockNumber: BigInt(item.block_number) }),
                        s.client.getBalance({ address: account.address, blockNumber: BigInt(item.block_number - 1) }),
                    ])
                    expect([item.value, item.delta], `${account.address} at block ${item.block_number}`).to.deep.equal([String(at), String(at - before)])
                    const { rows: [tx] } = await s.db.query('SELECT id FROM transaction WHERE block_number = $1', [item.block_number])
                    expect(item.transaction_hash).to.equal(tx.id)
                }
                expect(items[0].value, 'the newest point is the balance now').to.equal(String(await s.client.getBalance({ address: account.address })))
            }
        })

        it('a swap to the native coin adds a point for the coin the router paid back (an internal transfer)', async () => {
            const { rows: [paid] } = await s.db.query(`
                SELECT i.block_number, i."to" FROM internal_transaction i JOIN address a ON a.id = i."to"
                 WHERE i.index > 0 AND i.value > 0 AND i.error IS NULL AND NOT a.is_contract AND i."from" = $1 LIMIT 1`, [s.contracts.router.toLowerCase()])
            const { items } = await walk(`/addresses/${paid.to}/coin-balance-history`, S.CoinBalancePoint, { keys: ['block_number'] })
            const point = items.find((i) => i.block_number === paid.block_number)
            expect(point, 'a point at the swap\'s block').to.not.equal(undefined)
            expect(point!.value).to.equal(String(await s.client.getBalance({ address: paid.to, blockNumber: BigInt(paid.block_number) })))
        })

        it('-by-day: the balance at the end of each of the last 10 days since the first change, and `days`', async () => {
            for (const account of [s.account(41), s.account(10)]) {
                const body = await getOk(`/addresses/${account.address}/coin-balance-history-by-day`, S.CoinBalanceByDay)
                expect(body.days).to.equal(10)
                // Days from the first change (or the window's start) to today, by the wall clock as the route counts them.
                const { rows: [{ first }] } = await s.db.query(`SELECT to_char(min(timestamp) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS first FROM coin_balance WHERE address = $1`, [account.address.toLowerCase()])
                const expectedDays: string[] = []
                for (let d = 9; d >= 0; d--) {
                    const day = new Date(Date.now() - d * 86_400_000).toISOString().slice(0, 10)
                    if (day >= first) expectedDays.push(day)
                }
                expect(body.items.map((i) => i.date), `${account.address}: the days`).to.deep.equal(expectedDays)
                for (const item of body.items) {
                    const { rows: [last] } = await s.db.query(`SELECT max(number) AS number FROM block WHERE timestamp < ($1::date + 1)::timestamp AT TIME ZONE 'UTC'`, [item.date])
                    expect(item.value, `${account.address} at the end of ${item.date}`).to.equal(String(await s.client.getBalance({ address: account.address, blockNumber: BigInt(last.number) })))
                }
            }
        })

        it('answers garbage with 422', async () => {
            await expect422('/addresses/0x12/coin-balance-history')
            await expect422(`/addresses/${s.account(41).address}/coin-balance-history`, { block_number: 'x' })
            await expect422('/addresses/0x12/coin-balance-history-by-day')
        })
    })

    describe('/transactions/{h}/state-changes', () => {
        /** Checks every item against the node: balances at the block before and at the transaction's own block (it is alone there). */
        async function expectAgainstNode(hash: `0x${string}`) {
            const receipt = await s.client.getTransactionReceipt({ hash })
            const block = await s.client.getBlock({ blockNumber: receipt.blockNumber })
            expect(block.transactions, 'the transaction is alone in its block').to.have.length(1)
            const { items } = await walk(`/transactions/${hash}/state-changes`, S.StateChange, { keys: ['items_count'] })
            for (const item of items) {
                const address = item.address.hash as `0x${string}`
                const read = (n: bigint) => item.type === 'coin'
                    ? s.client.getBalance({ address, blockNumber: n })
                    : s.client.readContract({ address: item.token!.address_hash as `0x${string}`, abi: ERC20, functionName: 'balanceOf', args: [address], blockNumber: n })
                const [before, after] = await Promise.all([read(receipt.blockNumber - 1n), read(receipt.blockNumber)])
                expect([item.balance_before, item.balance_after], `${item.type} ${item.token?.symbol ?? ''} of ${address}`).to.deep.equal([String(before), String(after)])
                if (!Array.isArray(item.change)) expect(item.change).to.equal(String(after - before))
            }
            return { items, receipt, block }
        }

        it('a coin transfer paying a fee: sender (value + fee), recipient, and the miner\'s tip, as the node\'s balances', async () => {
            const { items, block } = await expectAgainstNode(s.extras.feeCoinTransfer)
            const miner = items.find((i) => i.is_miner)
            expect(miner?.address.hash).to.equal(checksum(block.miner))
            expect(items.filter((i) => i.type === 'coin')).to.have.length(3)
        })

        it('a token transfer paying a fee: the token balances of both parties and the sender\'s coin', async () => {
            const { items } = await expectAgainstNode(s.extras.feeTokenTransfer)
            expect(items.filter((i) => i.type === 'token').map((i) => i.token!.symbol)).to.deep.equal(['GOLD', 'GOLD'])
        })

        it('a swap to the native coin with a fee: the coin paid back through the router, the pair\'s and trader\'s tokens', async () => {
            const trader = s.account(10)
            const { rows: [{ decimals }] } = await s.db.query('SELECT decimals FROM token WHERE id = $1', [s.tokens.STABLE.toLowerCase()])
            const receipt = await s.send(trader, {
                to: s.contracts.router,
                data: encodeFunctionData({
                    abi: abis.AmmRouter, functionName: 'swapExactTokensForETH',
                    args: [100n * 10n ** BigInt(decimals), 0n, [s.tokens.STABLE, s.tokens.WNATIVE], trader.address, 2n ** 40n],
                }),
                maxFeePerGas: parseGwei('3'),
                maxPriorityFeePerGas: parseGwei('2'),
            })
            const { items } = await expectAgainstNode(receipt.transactionHash)
            const coin = items.find((i) => i.type === 'coin' && i.address.hash === checksum(trader.address))!
            expect(BigInt(coin.balance_after!) > BigInt(coin.balance_before!), 'the trader received more coin than the fee').to.equal(true)
            expect(items.some((i) => i.type === 'token' && i.token!.address_hash === checksum(s.tokens.STABLE) && i.address.hash === checksum(trader.address))).to.equal(true)
        })

        it('an NFT mint: the holder\'s count, with the token that came in', async () => {
            const { items } = await expectAgainstNode(s.extras.nft.mintTransaction)
            const nft = items.find((i) => i.type === 'token')!
            expect(nft.change).to.deep.equal([{ total: { token_id: String(s.extras.nft.tokenId) }, direction: 'to' }])
        })

        it('answers garbage with 422 and an unknown transaction with 404', async () => {
            await expect422('/transactions/0x12/state-changes')
            await expect422(`/transactions/${s.extras.feeCoinTransfer}/state-changes`, { items_count: 'x' })
            await expect404(`/transactions/0x${'cd'.repeat(32)}/state-changes`)
        })
    })
})
