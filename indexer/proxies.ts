import { RpcClient } from '@subsquid/rpc-client'
import { atBlockOrLatest, batchEthCalls, callRequest } from './rpc'

/**
 * Proxy detection: which implementation a contract forwards to, read from the node's state at one
 * block (docs/indexer.md#proxies). The kinds and their names are Blockscout's `proxy_type`.
 */

export type ProxyType = 'eip1167' | 'eip1967' | 'eip1967_beacon' | 'eip1822' | 'master_copy'

export interface DetectedProxy {
    type: ProxyType
    implementation: string
    /** the beacon of an eip1967_beacon proxy */
    beacon: string | null
}

/** Storage slots that hold an implementation (or a beacon), fixed by their standards. */
export const PROXY_SLOTS = {
    /** EIP-1967: bytes32(uint256(keccak256('eip1967.proxy.implementation')) - 1) */
    eip1967: '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc',
    /** EIP-1967: bytes32(uint256(keccak256('eip1967.proxy.beacon')) - 1) */
    beacon: '0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeab7ee2c2c8b8dd2cf2a1a9d',
    /** EIP-1822: keccak256('PROXIABLE') */
    eip1822: '0xc5f16f0fcc639fa48a6947836d9850f504798523bf8c9a3a87d5876cf622bcf7',
    /** Gnosis Safe's proxy: its first state variable, masterCopy (singleton since 1.3) */
    masterCopy: '0x0000000000000000000000000000000000000000000000000000000000000000',
} as const

/** `Upgraded(address)`: emitted by an EIP-1967 proxy when its logic changes, and by a beacon when its implementation does. */
export const UPGRADED_TOPIC = '0xbc7cd75a20ee27fd9adebab32041f755214dbc6bffa90cc0225b39da2e5c2d3b'
/** `BeaconUpgraded(address)`: emitted by an EIP-1967 beacon proxy when its beacon changes. */
export const BEACON_UPGRADED_TOPIC = '0x1cf3b03a6cf19fa2baba4df148e9dcabedea7f8a5c07840e207e5c089be95d3e'

/** `implementation()`, the beacon's getter (OpenZeppelin's IBeacon). */
const IMPLEMENTATION_SELECTOR = '0x5c60da1b'
/** `masterCopy()`, answered by the Safe's proxy itself. */
const MASTER_COPY_SELECTOR = '0xa619486e'

/** EIP-1167's runtime code: the 45 bytes with the implementation's 20 in the middle. */
const MINIMAL_CLONE = /^0x363d3d373d3d3d363d73([0-9a-f]{40})5af43d82803e903d91602b57fd5bf3$/

const ZERO_ADDRESS = '0x' + '0'.repeat(40)

/** The implementation of an EIP-1167 minimal clone, from its runtime code; null for any other code. */
export function minimalCloneImplementation(code: string): string | null {
    const match = MINIMAL_CLONE.exec(code.toLowerCase())
    return match && '0x' + match[1] !== ZERO_ADDRESS ? '0x' + match[1] : null
}

/**
 * The address in a storage word or a call's answer, lowercase; null for zero. `strict` refuses a
 * word with bits above the address's 160, which a slot shared with other state (slot 0) may hold;
 * the standards' own slots are read as Blockscout reads them, by their low 20 bytes.
 */
export function wordAddress(word: string | undefined, strict = false): string | null {
    if (!word || !/^0x[0-9a-fA-F]{1,64}$/.test(word)) return null
    const padded = word.slice(2).toLowerCase().padStart(64, '0')
    if (strict && !/^0{24}/.test(padded)) return null
    const address = '0x' + padded.slice(24)
    return address === ZERO_ADDRESS ? null : address
}

const SLOTS = [PROXY_SLOTS.eip1967, PROXY_SLOTS.beacon, PROXY_SLOTS.eip1822, PROXY_SLOTS.masterCopy]

/**
 * Which of `addresses` are proxies, and of what, at `block` (the latest state when the node no
 * longer holds that block's). Two JSON-RPC batches whatever their number: the code and the four
 * slots of each, then the calls that confirm what the slots point at (a beacon's implementation(),
 * a Safe's masterCopy()). In order: EIP-1167 (by code), EIP-1967's logic slot, its beacon slot,
 * EIP-1822's slot, and a masterCopy() that answers the address held at slot 0 (slot 0 alone is any
 * contract's first variable, often an owner, so the proxy's own answer must agree with it).
 */
export async function readProxies(client: RpcClient, addresses: string[], block: number): Promise<Map<string, DetectedProxy | null>> {
    const result = new Map<string, DetectedProxy | null>()
    if (addresses.length === 0) return result
    const perAddress = 1 + SLOTS.length
    const [answers, atBlock] = await atBlockOrLatest(block, (tag): Promise<string[]> => client.batchCall(addresses.flatMap((a) => [
        { method: 'eth_getCode', params: [a, tag] },
        ...SLOTS.map((slot) => ({ method: 'eth_getStorageAt', params: [a, slot, tag] })),
    ])))
    const tag = atBlock ? '0x' + block.toString(16) : 'latest'
    const followUps: { address: string; type: 'eip1967_beacon' | 'master_copy'; target: string }[] = []
    addresses.forEach((address, i) => {
        const [code, logic, beacon, proxiable, slot0] = answers.slice(i * perAddress, (i + 1) * perAddress)
        let found: DetectedProxy | null = null
        const clone = minimalCloneImplementation(code)
        if (clone) found = { type: 'eip1167', implementation: clone, beacon: null }
        else if (code === '0x' || code === '0x0') found = null
        else if (wordAddress(logic)) found = { type: 'eip1967', implementation: wordAddress(logic)!, beacon: null }
        else if (wordAddress(beacon)) followUps.push({ address, type: 'eip1967_beacon', target: wordAddress(beacon)! })
        else if (wordAddress(proxiable)) found = { type: 'eip1822', implementation: wordAddress(proxiable)!, beacon: null }
        else if (wordAddress(slot0, true)) followUps.push({ address, type: 'master_copy', target: wordAddress(slot0, true)! })
        result.set(address, found)
    })
    if (followUps.length === 0) return result
    const calls = await batchEthCalls(client, followUps.map((f) => f.type === 'eip1967_beacon'
        ? callRequest(f.target, IMPLEMENTATION_SELECTOR, tag)
        : callRequest(f.address, MASTER_COPY_SELECTOR, tag)))
    followUps.forEach((f, i) => {
        const answered = wordAddress(calls[i], true)
        if (f.type === 'eip1967_beacon' && answered) {
            result.set(f.address, { type: 'eip1967_beacon', implementation: answered, beacon: f.target })
        } else if (f.type === 'master_copy' && answered === f.target) {
            result.set(f.address, { type: 'master_copy', implementation: answered, beacon: null })
        }
    })
    return result
}
