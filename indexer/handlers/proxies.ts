import { RpcClient } from '@subsquid/rpc-client'
import { Batch } from '../batch'
import { BlockData } from '../processor'
import { BEACON_UPGRADED_TOPIC, readProxies, UPGRADED_TOPIC } from '../proxies'
import { ChainState } from '../state'
import { Frame } from '../traces'

/**
 * Adds to `candidates` the contracts whose proxy state this block may have set or changed: those it
 * created (by a transaction or a call frame), the emitters of `Upgraded` and `BeaconUpgraded`, and
 * the proxies of a beacon that emitted `Upgraded` (their implementation is the beacon's).
 */
export function addProxyCandidates(candidates: Set<string>, state: ChainState, block: BlockData, frames: Frame[] | undefined): void {
    for (const tx of block.transactions) {
        if (tx.contractAddress && tx.status === 1) candidates.add(tx.contractAddress)
    }
    for (const frame of frames ?? []) {
        // A frame whose parent failed created nothing that stands; its code reads as empty below.
        if (frame.createdContract && frame.error === null) candidates.add(frame.createdContract)
    }
    for (const log of block.logs) {
        const topic = log.topics[0]
        if (topic !== UPGRADED_TOPIC && topic !== BEACON_UPGRADED_TOPIC) continue
        candidates.add(log.address)
        for (const proxy of state.beaconProxies.get(log.address) ?? []) candidates.add(proxy)
    }
}

/**
 * Reads what the candidates forward to at `block` (the last of the blocks derived, so the row holds
 * the state the batch ends with) and records every proxy found in the batch. A candidate that is
 * no proxy is not written: a contract does not stop being a proxy by an event the indexer watches.
 */
export async function detectProxies(rpc: RpcClient, state: ChainState, batch: Batch, candidates: Set<string>, block: number): Promise<void> {
    const found = await readProxies(rpc, [...candidates], block)
    for (const [address, proxy] of found) {
        if (!proxy) continue
        state.setBeacon(address, proxy.beacon)
        batch.proxies.set(address, { id: address, proxyType: proxy.type, implementation: proxy.implementation, beacon: proxy.beacon, block })
    }
}
