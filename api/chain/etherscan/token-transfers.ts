import { z } from 'zod'
import { hex } from '../format'
import { EtherscanTransferRow, TokenStandard, tokenTransferWindow } from '../queries/token-transfers'
import { EtherscanContext } from './context'
import { EtherscanError, nothingFound, parseParams } from './envelope'
import { addressParam, paging, required, windowOf } from './params'
import { method, unix } from './rows'

/**
 * account's token-transfer lists, one per standard as Etherscan splits them: tokentx (ERC-20),
 * tokennfttx (ERC-721), token1155tx (ERC-1155, one row per token id of a TransferBatch). They
 * share their parameters, validation, window and the transaction's fields; each renders its
 * standard's fields in Etherscan's order.
 */

export const TokenTxQuery = z.object({
    address: addressParam(required('address'), 'Invalid address format').optional(),
    contractaddress: addressParam(required('contractaddress'), 'Invalid contract address format').optional(),
    ...paging,
})

interface Listed {
    rows: EtherscanTransferRow[]
    head: number
}

/** The window of the standard's transfers the query asks for; none is "No token transfers found" with [], as Blockscout. */
async function listTransfers(ctx: EtherscanContext, query: unknown, type: TokenStandard): Promise<Listed> {
    const params = parseParams(TokenTxQuery, query)
    if (params.address === undefined && params.contractaddress === undefined) {
        throw new EtherscanError('Query parameter address or contractaddress is required')
    }
    const w = windowOf(params)
    const [rows, head] = await Promise.all([tokenTransferWindow(ctx.edb, type, params.address, params.contractaddress, w), ctx.head.get()])
    if (rows.length === 0) throw nothingFound('No token transfers found')
    return { rows, head: head.number }
}

function located(r: EtherscanTransferRow) {
    return { blockNumber: String(r.block_number), timeStamp: unix(r.timestamp), hash: r.tx_hash, nonce: String(r.nonce), blockHash: r.block_hash }
}

function gas(r: EtherscanTransferRow) {
    return {
        transactionIndex: String(r.tx_index),
        gas: r.gas_limit,
        gasPrice: r.effective_gas_price,
        gasUsed: r.gas_used,
        cumulativeGasUsed: r.cumulative_gas_used,
    }
}

/** Etherscan's last field, then what this API adds: the log index (two transfers of one transaction told apart) and the method, as Blockscout adds it. */
function tail(r: EtherscanTransferRow, head: number) {
    return { confirmations: String(Math.max(head - r.block_number, 0)), logIndex: String(r.log_index), ...method(r.input, r.verified_signature) }
}

/** The input as Blockscout renders it; the NFT lists answer Etherscan's "deprecated" instead (docs/etherscan-api.md). */
async function tokentx(ctx: EtherscanContext, query: unknown) {
    const { rows, head } = await listTransfers(ctx, query, 'ERC-20')
    return rows.map((r) => ({
        ...located(r),
        from: r.from,
        contractAddress: r.token,
        to: r.to,
        value: r.value ?? '0',
        tokenName: r.name,
        tokenSymbol: r.symbol,
        tokenDecimal: r.decimals === null ? '' : String(r.decimals),
        ...gas(r),
        input: hex(r.input),
        ...tail(r, head),
    }))
}

/** An ERC-721 id is indivisible: tokenDecimal is "0" whatever decimals() the contract may answer, as Etherscan. */
async function tokennfttx(ctx: EtherscanContext, query: unknown) {
    const { rows, head } = await listTransfers(ctx, query, 'ERC-721')
    return rows.map((r) => ({
        ...located(r),
        from: r.from,
        contractAddress: r.token,
        to: r.to,
        tokenID: r.token_id ?? '',
        tokenName: r.name,
        tokenSymbol: r.symbol,
        tokenDecimal: '0',
        ...gas(r),
        input: 'deprecated',
        ...tail(r, head),
    }))
}

/** tokenValue is the amount of the id moved; a TransferBatch is one row per id, in its order. */
async function token1155tx(ctx: EtherscanContext, query: unknown) {
    const { rows, head } = await listTransfers(ctx, query, 'ERC-1155')
    return rows.map((r) => ({
        ...located(r),
        ...gas(r),
        input: 'deprecated',
        contractAddress: r.token,
        from: r.from,
        to: r.to,
        tokenID: r.token_id ?? '',
        tokenValue: r.value ?? '0',
        tokenName: r.name,
        tokenSymbol: r.symbol,
        ...tail(r, head),
    }))
}

export const tokenTransferActions = { tokentx, tokennfttx, token1155tx }
