import { getAddress, TransactionReceipt, TransactionReceiptNotFoundError } from 'viem'
import { z } from 'zod'
import { ApiDoc, DocumentedRouter } from '../../../common/service/api-doc'
import { KeysetCursor } from '../../../common/service/cursor'
import { CHAIN_ANSWERS, checksummedAddress, inData, PASSWORD, PASSWORD_ANSWERS, txHash } from '../api-doc'
import { badRequest, notFound, parseInput, sendData } from '../http'
import { PlatformServices } from '../services'
import { address, integer, optionalUserId, userId } from '../validation'

/**
 * Status and history (docs/platform-api.md, History): a user's wallets, a wallet's stored
 * transactions (platform_tx, newest first, keyset-paginated) and one transaction's status. Read
 * only: the rows are written by the durable sender (wallet-txs.ts), never here.
 */

const PAGE_MAX = 100
const PAGE_DEFAULT = 20

/** What a caller sees of a stored transaction's progress. */
export type TxState = 'pending' | 'mined' | 'confirmed' | 'failed'

const STORED_STATUSES = ['signed', 'broadcast', 'confirmed', 'reverted', 'rejected', 'dead'] as const

/** An opaque cursor: the id of the last row of the page, base64url so that clients do not build it. */
const cursor = z.string().max(64).optional().meta({ description: 'next_cursor of the previous page; absent for the first page' })

const ListInput = z.object({ user_id: userId })
const TransactionsInput = z.object({ address, user_id: optionalUserId, limit: integer(1, PAGE_MAX).default(PAGE_DEFAULT), cursor })
const TxInput = z.object({ hash: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a transaction hash (0x and 64 hex digits)'), user_id: userId })

const WalletView = z.looseObject({ address: checksummedAddress, origin: z.enum(['private_key', 'random', 'mnemonic']), created_at: z.string() }).meta({ id: 'PlatformWalletSummary' })
const storedTxFields = {
    hash: txHash,
    from: checksummedAddress,
    to: checksummedAddress.nullable(),
    nonce: z.number().int().nullable(),
    status: z.enum(['pending', 'mined', 'confirmed', 'failed']),
    stored_status: z.enum(STORED_STATUSES),
    block_number: z.number().int().nullable(),
    error: z.string().nullable(),
    request_id: z.string(),
    step: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
}
const StoredTxView = z.looseObject({ ...storedTxFields, confirmations: z.number().int().nullable() }).meta({ id: 'PlatformStoredTransaction' })
const TxStatusView = z.looseObject({
    ...storedTxFields,
    confirmations: z.number().int().nullable(),
    finality_confirmations: z.number().int(),
    gas_used: z.string().regex(/^\d+$/).nullable(),
    effective_gas_price: z.string().regex(/^\d+$/).nullable(),
}).meta({ id: 'PlatformTransactionStatus' })

interface TxRow {
    id: string
    request_id: string
    step: number
    from_address: string
    to_address: string | null
    nonce: string | null
    tx_hash: string
    status: (typeof STORED_STATUSES)[number]
    error: string | null
    block_number: string | null
    created_at: Date
    updated_at: Date
}

/** The platform_tx id of the last row of the previous page. */
const txCursor = new KeysetCursor([/[1-9]\d{0,17}/], () => badRequest('Invalid input: cursor is not a next_cursor this route handed out'), 'tx')

/** The caller's view of a stored row, given the chain's head (for the depth of a mined one). */
function stateOf(status: TxRow['status'], blockNumber: bigint | null, head: bigint | null, finality: number): { status: TxState; confirmations: number | null } {
    if (status === 'signed' || status === 'broadcast') return { status: 'pending', confirmations: null }
    if (status === 'rejected' || status === 'dead') return { status: 'failed', confirmations: null }
    const confirmations = blockNumber !== null && head !== null ? Math.max(0, Number(head - blockNumber) + 1) : null
    if (status === 'reverted') return { status: 'failed', confirmations }
    return { status: confirmations !== null && confirmations >= finality ? 'confirmed' : 'mined', confirmations }
}

function baseView(row: TxRow) {
    return {
        hash: row.tx_hash,
        from: getAddress(row.from_address),
        to: row.to_address ? getAddress(row.to_address) : null,
        nonce: row.nonce === null ? null : Number(row.nonce),
        stored_status: row.status,
        block_number: row.block_number === null ? null : Number(row.block_number),
        error: row.error,
        request_id: row.request_id,
        step: row.step,
        created_at: row.created_at.toISOString(),
        updated_at: row.updated_at.toISOString(),
    }
}

export function historyRoutes(s: PlatformServices, doc: ApiDoc): DocumentedRouter {
    const router = doc.router('/api/wallet', 'History')
    const finality = s.env.INDEXER_FINALITY_CONFIRMATION

    router.get('/list', {
        operationId: 'listWallets',
        summary: "The user's wallets, oldest first (user-level: the user's password)",
        query: ListInput,
        security: PASSWORD,
        responses: {
            200: { description: 'The wallets', schema: inData(z.looseObject({ user_id: z.string(), wallets: z.array(WalletView) })) },
            400: 'Invalid input',
            ...PASSWORD_ANSWERS,
        },
    }, async (req, res) => {
        const input = parseInput(ListInput, req.query)
        await s.auth.user(req, input.user_id)
        const { rows } = await s.pool.query('SELECT address, origin, created_at FROM platform_wallet WHERE user_id = $1 ORDER BY created_at, address', [input.user_id])
        sendData(res, {
            user_id: input.user_id,
            wallets: rows.map((r) => ({ address: getAddress(r.address), origin: r.origin, created_at: r.created_at.toISOString() })),
        })
    })

    router.get('/transactions/:address', {
        operationId: 'listWalletTransactions',
        summary: "The wallet's transactions the platform signed, newest first (wallet-level: the owner's password)",
        description: `Keyset-paginated: \`limit\` (1-${PAGE_MAX}, default ${PAGE_DEFAULT}) per page; pass \`next_cursor\` as \`cursor\` for the next page, null after the last. ` +
            'status is the stored one (pending: signed or broadcast; mined: fewer than the finality confirmations; confirmed; failed: reverted, rejected or dead); GET /api/wallet/tx/{hash} refreshes one from the node.',
        params: TransactionsInput.pick({ address: true }),
        query: TransactionsInput.omit({ address: true }),
        security: PASSWORD,
        responses: {
            200: {
                description: 'A page of the transactions',
                schema: inData(z.looseObject({ address: checksummedAddress, transactions: z.array(StoredTxView), next_cursor: z.string().nullable() })),
            },
            400: 'Invalid input, or a cursor this route did not hand out',
            ...PASSWORD_ANSWERS,
            ...CHAIN_ANSWERS,
        },
    }, async (req, res) => {
        const input = parseInput(TransactionsInput, { ...req.query, address: req.params.address })
        const after = input.cursor === undefined ? undefined : txCursor.decode(input.cursor)[0]
        await s.auth.wallet(req, input.address, input.user_id)
        const { rows } = await s.pool.query<TxRow>(
            `SELECT id, request_id, step, from_address, to_address, nonce, tx_hash, status, error, block_number, created_at, updated_at
             FROM platform_tx WHERE from_address = $1 AND ($2::bigint IS NULL OR id < $2::bigint) ORDER BY id DESC LIMIT $3`,
            [input.address.toLowerCase(), after ?? null, input.limit + 1]
        )
        const page = rows.slice(0, input.limit)
        // The depth of mined rows needs the head: one read per page, and none when nothing on it is mined.
        const head = page.some((r) => r.status === 'confirmed' || r.status === 'reverted') ? await headBlock(s) : null
        sendData(res, {
            address: input.address,
            transactions: page.map((row) => ({ ...baseView(row), ...stateOf(row.status, row.block_number === null ? null : BigInt(row.block_number), head, finality) })),
            next_cursor: rows.length > input.limit ? txCursor.encode(page[page.length - 1].id) : null,
        })
    })

    router.get('/tx/:hash', {
        operationId: 'getTransactionStatus',
        summary: "One transaction's status, with its block and gas (user-level: the password of user_id, whose wallet sent it)",
        description: 'From the stored row, refreshed from the node while the row is not final: pending (signed or broadcast, not mined), ' +
            `mined (fewer than INDEXER_FINALITY_CONFIRMATION confirmations), confirmed, or failed (reverted, refused by the node, or dead: its nonce used by another transaction). ` +
            'gas_used and effective_gas_price come from the receipt. A hash none of the user\'s wallets sent is 404, whether or not it exists.',
        params: TxInput.pick({ hash: true }),
        query: TxInput.omit({ hash: true }),
        security: PASSWORD,
        responses: {
            200: { description: 'The transaction', schema: inData(TxStatusView) },
            400: 'Invalid input',
            404: 'None of the user\'s wallets sent a transaction with this hash',
            ...PASSWORD_ANSWERS,
            ...CHAIN_ANSWERS,
        },
    }, async (req, res) => {
        const input = parseInput(TxInput, { ...req.query, hash: req.params.hash })
        await s.auth.user(req, input.user_id)
        const { rows } = await s.pool.query<TxRow>(
            `SELECT t.id, t.request_id, t.step, t.from_address, t.to_address, t.nonce, t.tx_hash, t.status, t.error, t.block_number, t.created_at, t.updated_at
             FROM platform_tx t JOIN platform_wallet w ON w.address = t.from_address
             WHERE t.tx_hash = $1 AND w.user_id = $2 ORDER BY t.id DESC LIMIT 1`,
            [input.hash.toLowerCase(), input.user_id]
        )
        const row = rows[0]
        if (!row) throw notFound('No transaction with this hash was sent by a wallet of this user')
        sendData(res, await statusOf(s, row, finality))
    })

    return router
}

async function headBlock(s: PlatformServices): Promise<bigint> {
    return s.chain.read(() => s.chain.client.getBlockNumber({ cacheTime: 0 }))
}

/**
 * One transaction's status: a row that never landed (rejected, dead) is final as stored; any other
 * is read again from the node (its receipt, for the block, the gas and whether a reorg took it),
 * so a row the resume pass has not caught up with yet is answered as the chain has it.
 */
async function statusOf(s: PlatformServices, row: TxRow, finality: number) {
    const view = baseView(row)
    const none = { confirmations: null, finality_confirmations: finality, gas_used: null, effective_gas_price: null }
    if (row.status === 'rejected' || row.status === 'dead') return { ...view, status: 'failed' as TxState, ...none }
    const [receipt, head] = await Promise.all([
        s.chain.read(async (): Promise<TransactionReceipt | null> => {
            try {
                return await s.chain.client.getTransactionReceipt({ hash: row.tx_hash as `0x${string}` })
            } catch (err) {
                if (err instanceof TransactionReceiptNotFoundError) return null
                throw err
            }
        }),
        headBlock(s),
    ])
    // Not (or no longer) mined: pending, whatever the row said (a reorg the resume pass will note).
    if (!receipt) return { ...view, block_number: null, status: 'pending' as TxState, ...none }
    const state = stateOf(receipt.status === 'success' ? 'confirmed' : 'reverted', receipt.blockNumber, head, finality)
    return {
        ...view,
        block_number: Number(receipt.blockNumber),
        ...state,
        finality_confirmations: finality,
        gas_used: receipt.gasUsed.toString(),
        effective_gas_price: receipt.effectiveGasPrice.toString(),
    }
}
