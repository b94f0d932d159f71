import {
    AbiEvent, AbiFunction, AbiParameter, decodeAbiParameters, decodeEventLog, decodeFunctionData, Hex, toEventSelector, toFunctionSelector,
} from 'viem'
import type { z } from 'zod'
import { abis } from '../../../abi'
import { signatureName, signatureText } from '../../../common/evm/function-signatures'
import { checksum } from '../format'
import type { DecodedInput, DecodedLog } from '../schemas'

/**
 * Decoding of transaction inputs and logs into Blockscout's DecodedInput shape. The ABIs known are
 * those of this project's contracts (the only ones the indexer verifies), which also cover the
 * standard ERC-20 / ERC-721 calls and events of any other token.
 */

const functions = new Map<string, AbiFunction>()
const events = new Map<string, AbiEvent[]>()
for (const abi of Object.values(abis)) {
    for (const item of abi as readonly (AbiFunction | AbiEvent | { type: string })[]) {
        if (item.type === 'function') {
            const fn = item as AbiFunction
            const selector = toFunctionSelector(fn)
            if (!functions.has(selector)) functions.set(selector, fn)
        } else if (item.type === 'event') {
            const ev = item as AbiEvent
            const topic = toEventSelector(ev)
            const variants = events.get(topic) ?? []
            const shape = ev.inputs.map((i) => `${i.type}:${i.indexed}`).join()
            if (!variants.some((v) => v.inputs.map((i) => `${i.type}:${i.indexed}`).join() === shape)) variants.push(ev)
            events.set(topic, variants)
        }
    }
}

/** Blockscout's method_call text, e.g. `Transfer(address indexed from, address indexed to, uint256 value)`. */

/** Scalars as strings (uints in decimal, addresses checksummed), arrays and tuples as nested arrays. */
export function displayValue(value: unknown): unknown {
    if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean') return String(value)
    if (typeof value === 'string') return /^0x[0-9a-fA-F]{40}$/.test(value) ? checksum(value.toLowerCase()) : value
    if (Array.isArray(value)) return value.map(displayValue)
    if (value && typeof value === 'object') return Object.values(value).map(displayValue)
    return value
}

/**
 * The function a selector calls: from the first of `abis` that declares it (the called contract's
 * verified ABIs, its implementation's first when it is a proxy: docs/chain-api.md#decoded-calls),
 * else from the ABIs known.
 */
export function knownFunction(selector: string, abis: readonly (readonly unknown[])[] = []): AbiFunction | undefined {
    for (const abi of abis) {
        const declared = abi.find((item): item is AbiFunction => (item as { type?: string }).type === 'function' && toFunctionSelector(item as AbiFunction) === selector)
        if (declared) return declared
    }
    return functions.get(selector)
}

/**
 * A call's method name in every list and on the single view: the name in the signature the called
 * contract's verified ABIs give it (`verified`, read with the rows: queries/called-methods.ts),
 * else the ABIs known.
 */
export function calledMethod(selector: string, verified: string | null | undefined): string | undefined {
    return verified ? signatureName(verified) : functions.get(selector)?.name
}

/** Every function of the ABIs known, by selector (0x and 8 hex digits). */
export function knownFunctions(): ReadonlyMap<string, AbiFunction> {
    return functions
}

export function decodeInput(input: Hex, abis?: readonly (readonly unknown[])[]): z.input<typeof DecodedInput> | null {
    if (input.length < 10) return null
    const fn = knownFunction(input.slice(0, 10).toLowerCase(), abis)
    if (!fn) return null
    try {
        const { args } = decodeFunctionData({ abi: [fn], data: input })
        return {
            method_id: input.slice(2, 10).toLowerCase(),
            method_call: signatureText(fn.name, fn.inputs),
            parameters: fn.inputs.map((p, i) => ({ name: p.name ?? '', type: p.type, value: displayValue((args ?? [])[i]) })),
        }
    } catch {
        return null
    }
}

export function decodeLog(topics: (string | null)[], data: Hex): z.input<typeof DecodedLog> | null {
    const topic0 = topics[0]
    if (!topic0) return null
    const present = topics.filter((t): t is Hex => t !== null) as [Hex, ...Hex[]]
    for (const ev of events.get(topic0) ?? []) {
        try {
            const { args } = decodeEventLog({ abi: [ev], topics: present, data, strict: true })
            const values = args as unknown as Record<string, unknown> | unknown[]
            return {
                method_id: topic0.slice(2, 10),
                method_call: signatureText(ev.name, ev.inputs),
                parameters: ev.inputs.map((p, i) => ({
                    name: p.name ?? '',
                    type: p.type,
                    indexed: p.indexed ?? false,
                    value: displayValue(Array.isArray(values) ? values[i] : values[p.name ?? String(i)]),
                })),
            }
        } catch {
            // the next variant (e.g. ERC-721's Transfer, indexed differently) may fit
        }
    }
    return null
}

/** An ABI's `error` item (viem does not export abitype's AbiError). */
interface AbiError {
    type: 'error'
    name: string
    inputs: readonly AbiParameter[]
}

/** The two errors Solidity itself raises, named as Blockscout's default error ABI names their inputs. */
const STANDARD_ERRORS: AbiError[] = [
    { type: 'error', name: 'Error', inputs: [{ name: 'reason', type: 'string' }] },
    { type: 'error', name: 'Panic', inputs: [{ name: 'errorCode', type: 'uint256' }] },
]

/**
 * Revert data decoded into Blockscout's DecodedInput shape: Error(string) and Panic(uint256)
 * always, a custom error with the first of `abis` that declares it (the verified ABIs of the
 * contracts that may have raised it, most likely first); null when none does.
 */
export function decodeRevertReason(data: Hex, abis: readonly (readonly unknown[])[] = []): z.input<typeof DecodedInput> | null {
    if (data.length < 10) return null
    const selector = data.slice(0, 10).toLowerCase()
    const declared = abis.flatMap((abi) => abi.filter((item): item is AbiError => (item as { type?: string }).type === 'error'))
    for (const error of [...STANDARD_ERRORS, ...declared]) {
        if (toFunctionSelector(error as unknown as AbiFunction) !== selector) continue
        try {
            const values = decodeAbiParameters(error.inputs, `0x${data.slice(10)}`)
            return {
                method_id: selector.slice(2),
                method_call: signatureText(error.name, error.inputs),
                parameters: error.inputs.map((p, i) => ({ name: p.name ?? '', type: p.type, value: displayValue(values[i]) })),
            }
        } catch {
            // data that does not fit this declaration; another ABI may declare the selector otherwise
        }
    }
    return null
}
