import { AbiFunction, AbiParameter, toFunctionSelector } from 'viem'

/**
 * How Blockscout writes a function or event with its parameters (`method_call`), and Etherscan its
 * `functionName`: `transfer(address to, uint256 value)`, `Transfer(address indexed from, …)`.
 */
export function signatureText(name: string, inputs: readonly (AbiParameter & { indexed?: boolean })[]): string {
    return `${name}(${inputs.map((i) => [i.type, i.indexed ? 'indexed' : '', i.name ?? ''].filter(Boolean).join(' ')).join(', ')})`
}

/** The name in a signatureText: what a list shows as a call's `method`. */
export function signatureName(signature: string): string {
    const open = signature.indexOf('(')
    return open < 0 ? signature : signature.slice(0, open)
}

/**
 * A verified ABI's functions as `selector -> signatureText` (selectors `0x` and 8 lowercase hex
 * digits, the first function declaring one wins, as decoding takes it). Stored with a verification
 * (`verified_contract.selectors`), so that a list names a call to the contract, and the
 * Etherscan-style lists give its `functionName`, without reading its ABI, which can be kilobytes
 * (docs/chain-api.md#decoded-calls). An item that is no well-formed function is skipped: a verified
 * ABI is the compiler's output, but a name must never fail a save. The migration that filled the
 * column for earlier rows (db/migrations/1795436100000-VerifiedSelectors.js) does the same.
 */
export function functionSignatures(abi: readonly unknown[]): Record<string, string> {
    const signatures: Record<string, string> = {}
    for (const item of abi) {
        const fn = item as Partial<AbiFunction> | null
        if (fn?.type !== 'function' || typeof fn.name !== 'string') continue
        try {
            const selector = toFunctionSelector(fn as AbiFunction)
            if (!(selector in signatures)) signatures[selector] = signatureText(fn.name, fn.inputs ?? [])
        } catch {
            // a malformed parameter type: nothing to name it by
        }
    }
    return signatures
}
