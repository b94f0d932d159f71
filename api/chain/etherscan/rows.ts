import { Hex } from 'viem'
import { hex } from '../format'
import { decodeInput } from '../render/decode'

/** Etherscan's numbers are decimal strings; its times unix seconds. */
export function unix(date: Date): string {
    return String(Math.floor(date.getTime() / 1000))
}

export function hexNumber(value: number | string | bigint): string {
    return `0x${BigInt(value).toString(16)}`
}

/**
 * methodId is the input's selector ("0x" for a plain transfer); functionName the signature text
 * when one of the ABIs this chain knows decodes the input, "" otherwise, as Etherscan leaves it
 * for unverified targets.
 */
export function method(input: Buffer): { methodId: string; functionName: string } {
    const data = hex(input) as Hex
    return {
        methodId: data.length >= 10 ? data.slice(0, 10) : '0x',
        functionName: decodeInput(data)?.method_call ?? '',
    }
}

/** Transaction columns of `transaction t` every list row of the account module shows. */
export const TX_FIELDS = `t.id AS tx_hash, t.block_hash AS tx_block_hash, t.index AS tx_index, t.nonce, t."from" AS tx_from,
    t."to" AS tx_to, t.created_contract, t.value::text AS tx_value, t.gas_limit::text, t.effective_gas_price::text,
    t.gas_used::text, t.status, t.input,
    (SELECT sum(c.gas_used) FROM transaction c WHERE c.block_number = t.block_number AND c.index <= t.index)::text AS cumulative_gas_used`

export interface TxFields {
    tx_hash: string
    tx_block_hash: string
    tx_index: number
    nonce: number
    tx_from: string
    tx_to: string | null
    created_contract: string | null
    tx_value: string
    gas_limit: string
    effective_gas_price: string
    gas_used: string
    status: number
    input: Buffer
    cumulative_gas_used: string
}
