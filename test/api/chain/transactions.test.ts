import { expect } from 'chai'
import { Abi, AbiFunction, decodeFunctionData, getAddress, Hex, toFunctionSelector } from 'viem'
import { abis } from '../../../abi'
import { Stack } from '../../support/stack'
import { StoredTransactionRow } from '../../../api/chain/queries/transactions'
import {
    checksum, expect404, expect422, expectEmptyPage, expectTokenTransfer, expectTransaction, getOk, hex, loadTruth,
    stack, Truth, TT_COLUMNS, TX_COLUMNS, unknownHash, v2,
} from './helpers'
import * as S from './shapes'

/** Blockscout's method_call: `name(type name, …)` with the ABI's parameter names. */
function methodCall(fn: AbiFunction): string {
    return `${fn.name}(${fn.inputs.map((i) => `${i.type} ${i.name}`).join(', ')})`
}

/** Decoded values as Blockscout renders them: decimal strings, checksummed addresses, nested arrays. */
function render(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(render)
    if (typeof value === 'bigint') return value.toString()
    if (typeof value === 'boolean') return String(value)
    if (typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value)) return getAddress(value)
    return String(value)
}

function expectedDecodedInput(abi: Abi, input: Hex): S.DecodedInput {
    const { functionName, args } = decodeFunctionData({ abi, data: input })
    const fn = abi.find((i) => i.type === 'function' && i.name === functionName && toFunctionSelector(i as AbiFunction) === input.slice(0, 10)) as AbiFunction
    return {
        method_id: input.slice(2, 10),
        method_call: methodCall(fn),
        parameters: fn.inputs.map((p, i) => ({ name: p.name ?? '', type: p.type, value: render((args as unknown[])[i]) as any })),
    }
}

describe('chain API: /transactions', function () {
    this.timeout(600_000)
    let s: Stack
    let truth: Truth

    before(async () => {
        s = await stack()
    })
    beforeEach(async () => {
        truth = await loadTruth(s.db)
    })

    async function row(hash: string): Promise<StoredTransactionRow> {
        const { rows } = await s.db.query(`SELECT ${TX_COLUMNS} FROM transaction WHERE id = $1`, [hash])
        expect(rows, `transaction ${hash} in the database`).to.have.length(1)
        return rows[0]
    }
    async function transfersOf(hash: string) {
        return (await s.db.query(`SELECT ${TT_COLUMNS} FROM token_transfer t WHERE t.transaction_hash = $1 ORDER BY t.log_index`, [hash])).rows
    }

    it('a coin transfer paying a fee equals its receipt: status, gas_used, fee = gasUsed × effectiveGasPrice, gas_price, value, nonce, type', async () => {
        const hash = s.extras.feeCoinTransfer
        const tx = await getOk(`/transactions/${hash}`, S.TransactionSingle)
        const receipt = await s.client.getTransactionReceipt({ hash })
        const onChain = await s.client.getTransaction({ hash })
        expect(tx.status).to.equal('ok')
        expect(tx.result).to.equal('success')
        expect(tx.gas_used).to.equal(receipt.gasUsed.toString())
        const fee = receipt.gasUsed * receipt.effectiveGasPrice
        expect(fee > 0n, 'this transaction pays a fee').to.equal(true)
        expect(tx.fee).to.deep.equal({ type: 'actual', value: fee.toString() })
        // [choice] gas_price of a mined EIP-1559 transaction is its effective gas price (what the node reports as gasPrice).
        expect(tx.gas_price).to.equal(receipt.effectiveGasPrice.toString())
        expect(tx.max_fee_per_gas).to.equal(onChain.maxFeePerGas!.toString())
        expect(tx.max_priority_fee_per_gas).to.equal(onChain.maxPriorityFeePerGas!.toString())
        expect(tx.value).to.equal(onChain.value.toString())
        expect(tx.nonce).to.equal(onChain.nonce)
        expect(tx.type).to.equal(2)
        expect(tx.gas_limit).to.equal(onChain.gas.toString())
        expect(tx.block_number).to.equal(Number(receipt.blockNumber))
        expect(tx.position).to.equal(receipt.transactionIndex)
        expect(tx.from.hash).to.equal(getAddress(receipt.from))
        expect(tx.to!.hash).to.equal(getAddress(receipt.to!))
        expect(tx.created_contract).to.equal(null)
        expect(tx.method).to.equal(null)
        expect(tx.decoded_input).to.equal(null)
        expect(tx.raw_input).to.equal('0x')
        expect(tx.transaction_types).to.deep.equal(['coin_transfer'])
        expect(tx.token_transfers ?? [], 'no token transfers').to.deep.equal([])
        expectTransaction(tx, await row(hash), truth, `/transactions/${hash}`)
    })

    it('a GOLD transfer: method "transfer", decoded input, its token transfer with decimals, fee', async () => {
        const hash = s.extras.feeTokenTransfer
        const tx = await getOk(`/transactions/${hash}`, S.TransactionSingle)
        const receipt = await s.client.getTransactionReceipt({ hash })
        const onChain = await s.client.getTransaction({ hash })
        expect(tx.fee.value).to.equal((receipt.gasUsed * receipt.effectiveGasPrice).toString())
        expect(tx.method).to.equal('transfer')
        expect(tx.decoded_input).to.deep.equal(expectedDecodedInput(abis.PlatformToken as Abi, onChain.input))
        expect(tx.decoded_input!.method_id).to.equal('a9059cbb')
        expect(tx.decoded_input!.parameters[1].value).to.equal('12500000000000000000')
        expect(tx.to!.hash).to.equal(getAddress(s.tokens.GOLD))
        expect(tx.to!.is_contract).to.equal(true)
        expect(tx.token_transfers).to.have.length(1)
        const [transfer] = tx.token_transfers!
        expect(transfer.total).to.deep.equal({ value: '12500000000000000000', decimals: '18' })
        expect(transfer.token.symbol).to.equal('GOLD')
        expect(transfer.type).to.equal('token_transfer')
        expect(tx.token_transfers_overflow).to.equal(false)
        expect([...tx.transaction_types].sort()).to.deep.equal(['contract_call', 'token_transfer'])
        const dbRow = await row(hash)
        expectTransaction(tx, dbRow, truth, `/transactions/${hash}`)
        const [ttRow] = await transfersOf(hash)
        expectTokenTransfer(transfer, ttRow, dbRow, truth, 'token_transfers[0]')
    })

    it('a router swap: decoded_input of our router (method_call with the ABI names, path as checksummed addresses), the first 10 transfers', async () => {
        const router = s.contracts.router.toLowerCase()
        const fn = (abis.AmmRouter as readonly any[]).find((i) => i.name === 'swapExactTokensForTokensSupportingFeeOnTransferTokens') as AbiFunction
        const { rows } = await s.db.query(`SELECT ${TX_COLUMNS} FROM transaction WHERE "to" = $1 AND method_id = $2 AND status = 1 ORDER BY block_number DESC LIMIT 1`, [router, toFunctionSelector(fn)])
        expect(rows, 'a seeded swap').to.have.length(1)
        const dbRow: StoredTransactionRow = rows[0]
        const tx = await getOk(`/transactions/${dbRow.id}`, S.TransactionSingle)
        expectTransaction(tx, dbRow, truth, `/transactions/${dbRow.id}`)
        expect(tx.method).to.equal('swapExactTokensForTokensSupportingFeeOnTransferTokens')
        expect(tx.decoded_input).to.deep.equal(expectedDecodedInput(abis.AmmRouter as Abi, hex(dbRow.input) as Hex))
        expect(tx.decoded_input!.method_call).to.equal('swapExactTokensForTokensSupportingFeeOnTransferTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline)')
        expect(tx.to!.name).to.equal('AmmRouter')
        expect(tx.to!.is_verified).to.equal(true)
        const transfers = await transfersOf(dbRow.id)
        expect(transfers.length).to.be.greaterThan(1)
        expect(tx.token_transfers!.map((t) => t.log_index)).to.deep.equal(transfers.slice(0, 10).map((t) => t.log_index))
        tx.token_transfers!.forEach((t, i) => expectTokenTransfer(t, transfers[i], dbRow, truth, `token_transfers[${i}]`))
        expect(tx.token_transfers_overflow).to.equal(transfers.length > 10)
    })

    it('a reverted swap: status "error", an error result, method "swapExactTokensForTokens" decoded', async () => {
        const { rows } = await s.db.query(`SELECT ${TX_COLUMNS} FROM transaction WHERE status = 0 ORDER BY block_number DESC LIMIT 1`)
        expect(rows, 'the seed has reverted trades').to.have.length(1)
        const dbRow: StoredTransactionRow = rows[0]
        const tx = await getOk(`/transactions/${dbRow.id}`, S.TransactionSingle)
        const receipt = await s.client.getTransactionReceipt({ hash: dbRow.id as Hex })
        expect(receipt.status).to.equal('reverted')
        expect(tx.status).to.equal('error')
        expect(tx.result).to.not.equal('success')
        expect(tx.gas_used).to.equal(receipt.gasUsed.toString())
        expect(tx.method).to.equal('swapExactTokensForTokens')
        expect(tx.decoded_input!.method_call).to.equal('swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline)')
        expect(tx.token_transfers ?? []).to.deep.equal([])
        expectTransaction(tx, dbRow, truth, `/transactions/${dbRow.id}`)
    })

    it('a contract creation: to null, created_contract the new contract, method null, type contract_creation', async () => {
        const { transactionHash, address } = s.extras.unverified
        const tx = await getOk(`/transactions/${transactionHash}`, S.TransactionSingle)
        expect(tx.to).to.equal(null)
        expect(tx.created_contract!.hash).to.equal(address)
        expect(tx.created_contract!.is_contract).to.equal(true)
        expect(tx.method).to.equal(null)
        expect(tx.transaction_types).to.include('contract_creation')
        expectTransaction(tx, await row(transactionHash), truth, `/transactions/${transactionHash}`)
    })

    it('a transaction with 60 token transfers: the single view holds the first 10 and says it overflows', async () => {
        const hash = s.extras.disperse.transactionHash
        const tx = await getOk(`/transactions/${hash}`, S.TransactionSingle)
        const transfers = await transfersOf(hash)
        expect(transfers).to.have.length(60)
        expect(tx.token_transfers!.map((t) => t.log_index)).to.deep.equal(transfers.slice(0, 10).map((t) => t.log_index))
        expect(tx.token_transfers_overflow).to.equal(true)
        expect(tx.method).to.equal('disperseToken')
        expect(tx.token_transfers!.every((t) => t.total !== null && (t.total as any).value === s.extras.disperse.amount.toString() && (t.total as any).decimals === '6')).to.equal(true)
    })

    it('an ERC-721 mint: total {token_id, token_instance}, type token_minting', async () => {
        const hash = s.extras.nft.mintTransaction
        const tx = await getOk(`/transactions/${hash}`, S.TransactionSingle)
        expect(tx.token_transfers).to.have.length(1)
        const [t] = tx.token_transfers!
        expect(t.token_type).to.equal('ERC-721')
        expect(t.type).to.equal('token_minting')
        expect(t.from.hash).to.equal(checksum('0x0000000000000000000000000000000000000000'))
        shapeOf721(t.total)
        expect((t.total as any).token_id).to.equal('42')
        const page = await getOk(`/transactions/${hash}/token-transfers`, S.page(S.TokenTransfer))
        expect(page.items.map((i) => (i.total as any).token_id)).to.deep.equal(['42'])

        function shapeOf721(total: unknown) {
            const parsed = S.Erc721Total.safeParse(total)
            if (!parsed.success) expect.fail(`ERC-721 total: ${parsed.error.message}`)
        }
    })

    it('a transfer of a token without decimals: total.decimals null', async () => {
        const hash = s.extras.nullName.mintTransaction
        const page = await getOk(`/transactions/${hash}/token-transfers`, S.page(S.TokenTransfer))
        expect(page.items).to.have.length(1)
        expect(page.items[0].total).to.deep.equal({ value: '7', decimals: null })
        expect(page.items[0].token.name).to.equal(null)
        expect(page.items[0].token.decimals).to.equal(null)
    })

    it('/transactions/{h}/logs: each log with smart_contract = the transaction\'s to, and decoded with our ABI', async () => {
        const hash = s.extras.feeTokenTransfer
        const page = await getOk(`/transactions/${hash}/logs`, S.page(S.Log))
        expect(page.items).to.have.length(1)
        expect(page.next_page_params).to.equal(null)
        const [log] = page.items
        expect(log.address.hash).to.equal(getAddress(s.tokens.GOLD))
        expect(log.smart_contract!.hash).to.equal(getAddress(s.tokens.GOLD))
        expect(log.topics[0]).to.equal('0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef')
        expect(log.topics[3]).to.equal(null)
        expect(log.decoded, 'a Transfer log of our token is decoded').to.not.equal(null)
        expect(log.decoded!.method_id).to.equal('ddf252ad')
        // Blockscout explorer/chain/log.ex function_call/2 writes "type indexed name" for indexed inputs.
        expect(log.decoded!.method_call).to.equal('Transfer(address indexed from, address indexed to, uint256 value)')
        expect(log.decoded!.parameters).to.deep.equal([
            { name: 'from', type: 'address', value: s.account(0).address, indexed: true },
            { name: 'to', type: 'address', value: s.account(3).address, indexed: true },
            { name: 'value', type: 'uint256', value: '12500000000000000000', indexed: false },
        ])
    })

    it('/transactions/{h}/token-transfers?type= filters by token type; empty type is allowed', async () => {
        const hash = s.extras.feeTokenTransfer
        expect((await getOk(`/transactions/${hash}/token-transfers`, S.page(S.TokenTransfer), { type: 'ERC-20' })).items).to.have.length(1)
        expect((await getOk(`/transactions/${hash}/token-transfers`, S.page(S.TokenTransfer), { type: 'ERC-20,ERC-721' })).items).to.have.length(1)
        const empty = await v2(`/transactions/${hash}/token-transfers?type=`)
        expect(empty.status, empty.text).to.equal(200)
        expect(empty.body.items).to.have.length(1)
        await expectEmptyPage(`/transactions/${hash}/token-transfers`, { type: 'ERC-721' })
        await expect422(`/transactions/${hash}/token-transfers`, { type: 'ERC-999' })
    })

    it('a transaction without logs or transfers has empty lists', async () => {
        await expectEmptyPage(`/transactions/${s.extras.feeCoinTransfer}/logs`)
        await expectEmptyPage(`/transactions/${s.extras.feeCoinTransfer}/token-transfers`)
    })

    it('hashes are accepted in upper case', async () => {
        const upper = `0x${s.extras.feeCoinTransfer.slice(2).toUpperCase()}`
        expect((await getOk(`/transactions/${upper}`, S.TransactionSingle)).hash).to.equal(s.extras.feeCoinTransfer)
    })

    it('unknown transactions are 404 {"message":"Not found"}, with their logs and token transfers', async () => {
        const hash = unknownHash()
        await expect404(`/transactions/${hash}`)
        await expect404(`/transactions/${hash}/logs`)
        // [choice] the reference is silent for token-transfers; Blockscout looks the transaction up first.
        await expect404(`/transactions/${hash}/token-transfers`)
    })

    it('malformed hashes are 422', async () => {
        for (const bad of ['0x1234', 'abc', `0x${'z'.repeat(64)}`, `0x${'a'.repeat(63)}`, `0x${'a'.repeat(65)}`, '12345', s.account(1).address]) {
            await expect422(`/transactions/${bad}`)
            await expect422(`/transactions/${bad}/logs`)
            await expect422(`/transactions/${bad}/token-transfers`)
        }
    })

    it('bad enums are 422: /transactions?filter=, ?type= (only blob_transaction is accepted there)', async () => {
        await expect422('/transactions', { filter: 'bogus' })
        await expect422('/transactions', { type: 'bogus' })
    })

    it('/main-page/transactions: a bare array of the 6 newest validated transactions, list variant', async () => {
        const res = await v2('/main-page/transactions')
        expect(res.status, res.text).to.equal(200)
        expect(Array.isArray(res.body), 'a bare array').to.equal(true)
        const rows: StoredTransactionRow[] = (await s.db.query(`SELECT ${TX_COLUMNS} FROM transaction ORDER BY block_number DESC, index DESC LIMIT 6`)).rows
        expect(res.body.map((t: any) => t.hash)).to.deep.equal(rows.map((r) => r.id))
        res.body.forEach((t: unknown, i: number) => {
            const parsed = S.TransactionListItem.safeParse(t)
            if (!parsed.success) expect.fail(`/main-page/transactions[${i}]: ${parsed.error.message}`)
            expectTransaction(parsed.data, rows[i], truth, `/main-page/transactions[${i}]`)
        })
    })

    it('/transactions/stats: the 24-hour count and fees from the rows, strings', async () => {
        // [choice] Blockscout serves these counters from a periodically refreshed cache; a cache of
        // up to 5 minutes is tolerated: the answer lies between the counts of the windows ending
        // 5 minutes before the call and at the call.
        const window = async (sql: string, at: Date) => (await s.db.query(`SELECT count(*)::int AS n, coalesce(sum(fee), 0)::text AS fees FROM transaction WHERE ${sql}`, [at])).rows[0]
        const t0 = new Date()
        const stats = await getOk('/transactions/stats', S.TransactionStats)
        const t1 = new Date()
        const upper = await window(`timestamp > $1::timestamptz - interval '24 hours 5 minutes'`, t0)
        const lower = await window(`timestamp > $1::timestamptz - interval '24 hours' AND timestamp <= $1::timestamptz - interval '5 minutes'`, t1)
        expect(Number(stats.transactions_count_24h)).to.be.within(lower.n, upper.n)
        expect(upper.n).to.be.greaterThan(0)
        expect(stats.pending_transactions_count).to.equal('0')
        const fees = BigInt(stats.transaction_fees_sum_24h.replace(/\.0*$/, ''))
        expect(fees >= BigInt(lower.fees) && fees <= BigInt(upper.fees), `fees ${fees} within ${lower.fees}..${upper.fees}`).to.equal(true)
    })
})
