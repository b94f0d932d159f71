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
 * the called contract's verified ABIs give it (`verified`, read with the row), else the one of the
 * ABIs this chain knows when it decodes the input, "" otherwise, as Etherscan leaves it for
 * unverified targets.
 */
export function method(input: Buffer, verified: string | null): { methodId: string; functionName: string } {
    const data = hex(input) as Hex
    return {
        methodId: data.length >= 10 ? data.slice(0, 10) : '0x',
        functionName: verified ?? decodeInput(data)?.method_call ?? '',
    }
}
