import { AbiFunction, toFunctionSelector } from 'viem'

/**
 * A verified ABI's functions as `selector -> name` (selectors `0x` and 8 lowercase hex digits, the
 * first function declaring one wins, as decoding takes it). Stored with a verification
 * (`verified_contract.selectors`), so that a list names a call to the contract without reading its
 * ABI, which can be kilobytes (docs/chain-api.md#decoded-calls). An item that is no well-formed
 * function is skipped: a verified ABI is the compiler's output, but a name must never fail a save.
 * The migration that filled the column for earlier rows (db/migrations/1795436100000-VerifiedSelectors.js)
 * does the same.
 */
export function functionNames(abi: readonly unknown[]): Record<string, string> {
    const names: Record<string, string> = {}
    for (const item of abi) {
        const fn = item as Partial<AbiFunction> | null
        if (fn?.type !== 'function' || typeof fn.name !== 'string') continue
        try {
            const selector = toFunctionSelector(fn as AbiFunction)
            if (!(selector in names)) names[selector] = fn.name
        } catch {
            // a malformed parameter type: nothing to name it by
        }
    }
    return names
}
