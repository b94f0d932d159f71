import type { z } from 'zod'
import { relatedAddresses } from './address'
import { knownFunction, knownFunctions } from './decode'
import { renderToken } from './token'
import { transferTotal } from './token-transfer'
import { isoTimestamp } from '../format'
import { AdvancedFilterRow } from '../queries/advanced-filters'
import { callKey } from '../queries/called-methods'
import { Related, RelatedRefs } from '../queries/related'
import type { AdvancedFilterItem, AdvancedFilterMethod } from '../schemas'

/**
 * The methods Blockscout's advanced filter offers before anything is typed (its controller's list,
 * most used first on the chains it serves), and names by which `methods_names` picks them.
 */
export const COMMON_METHODS: readonly z.input<typeof AdvancedFilterMethod>[] = [
    { method_id: '0xa9059cbb', name: 'transfer' },
    { method_id: '0xa0712d68', name: 'mint' },
    { method_id: '0x095ea7b3', name: 'approve' },
    { method_id: '0x40993b26', name: 'buy' },
    { method_id: '0x3593564c', name: 'execute' },
    { method_id: '0x3ccfd60b', name: 'withdraw' },
    { method_id: '0xd0e30db0', name: 'deposit' },
    { method_id: '0x0a19b14a', name: 'trade' },
    { method_id: '0x4420e486', name: 'register' },
    { method_id: '0x5f575529', name: 'swap' },
    { method_id: '0xd9627aa4', name: 'sellToUniswap' },
    { method_id: '0xe9e05c42', name: 'depositTransaction' },
    { method_id: '0x23b872dd', name: 'transferFrom' },
    { method_id: '0xa22cb465', name: 'setApprovalForAll' },
    { method_id: '0x2e7ba6ef', name: 'claim' },
    { method_id: '0x0502b1c5', name: 'unoswap' },
    { method_id: '0xb2267a7b', name: 'sendMessage' },
    { method_id: '0x9871efa4', name: 'unxswapByOrderId' },
    { method_id: '0xbf6eac2f', name: 'stake' },
    { method_id: '0x3ce33bff', name: 'bridge' },
    { method_id: '0xeb672419', name: 'requestL2Transaction' },
    { method_id: '0xe449022e', name: 'uniswapV3Swap' },
    { method_id: '0x0162e2d0', name: 'swapETHForExactTokens' },
]

/** A method's name: the common list's, else the ABIs known (this project's contracts and the token standards). */
export function methodName(selector: string): string | undefined {
    return COMMON_METHODS.find((m) => m.method_id === selector)?.name ?? knownFunction(selector)?.name
}

/**
 * `/advanced-filters/methods?q=`: without q the common list; with q (any case) the method of that
 * selector or of that exact name, the common list first, then the ABIs known (every selector
 * declaring the name); a selector nothing names is answered with an empty name, as Blockscout does.
 */
export function searchMethods(q: string | undefined): z.input<typeof AdvancedFilterMethod>[] {
    const text = (q ?? '').trim().toLowerCase()
    if (text === '') return [...COMMON_METHODS]
    if (/^0x[0-9a-f]{8}$/.test(text)) return [{ method_id: text, name: methodName(text) ?? '' }]
    const common = COMMON_METHODS.filter((m) => m.name.toLowerCase() === text)
    if (common.length > 0) return common
    return [...knownFunctions()].filter(([, fn]) => fn.name.toLowerCase() === text).map(([selector, fn]) => ({ method_id: selector, name: fn.name }))
}

/** What renderAdvancedFilterItems shows of other rows: every address, and the tokens of the transfers. */
export function advancedFilterRefs(rows: readonly AdvancedFilterRow[]): RelatedRefs {
    return {
        addresses: rows.flatMap((r) => [r.from, r.to, r.created_contract]),
        tokens: rows.flatMap((r) => (r.kind === 'token_transfer' ? [r.token] : [])),
        calls: rows.flatMap((r) => (r.method_id && r.callee ? [{ contract: r.callee, selector: r.method_id }] : [])),
    }
}

/**
 * Blockscout's advanced filter items. A transaction's fee is shown once per page: on the first of
 * its items, and 0 on the token transfers and the transaction that follow it on the same page (an
 * internal transaction shows its own frame's gas at the transaction's price), as Blockscout's
 * sanitize_fee does, so that a page's fees add up.
 */
export function renderAdvancedFilterItems(rows: readonly AdvancedFilterRow[], related: Related): z.input<typeof AdvancedFilterItem>[] {
    const address = relatedAddresses(related)
    let previousHash: string | undefined
    return rows.map((r) => {
        const to = address(r.to)
        // The verified ABIs of the contract called name it first, as in the transaction lists.
        const named = r.method_id ? (r.callee && related.methods.get(callKey(r.callee, r.method_id))) ?? methodName(r.method_id) : undefined
        const repeated = previousHash === r.hash && r.kind !== 'internal_transaction'
        previousHash = r.hash
        const common = {
            hash: r.hash,
            status: r.status === 1 ? 'ok' as const : 'error' as const,
            from: address(r.from),
            to,
            created_contract: address(r.created_contract),
            timestamp: isoTimestamp(r.timestamp),
            block_number: r.block_number,
            transaction_index: r.transaction_index,
            fee: repeated ? '0' : r.fee,
        }
        if (r.kind === 'token_transfer') {
            const token = related.tokens.get(r.token)
            return {
                ...common,
                type: r.token_type as z.input<typeof AdvancedFilterItem>['type'],
                // The transaction's method, as a token transfer list shows it.
                method: r.method_id ? named ?? r.method_id : null,
                value: null,
                total: transferTotal({ token_type: r.token_type as never, token_id: r.token_id, value: r.amount }, token?.decimals ?? null),
                token: token ? renderToken(token) : null,
                internal_transaction_index: null,
                token_transfer_index: r.log_index,
                token_transfer_batch_index: r.batch_index,
            }
        }
        const type = r.to === null ? 'contract_creation' as const : to?.is_contract ? 'contract_interaction' as const : 'coin_transfer' as const
        return {
            ...common,
            type,
            // As a transaction list shows it: the name, else the selector of a call to a contract.
            method: r.method_id ? named ?? (to?.is_contract ? r.method_id : null) : null,
            value: r.value,
            total: null,
            token: null,
            internal_transaction_index: r.kind === 'internal_transaction' ? r.frame_index : null,
            token_transfer_index: null,
            token_transfer_batch_index: null,
        }
    })
}
