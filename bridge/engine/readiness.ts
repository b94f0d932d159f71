import { ReadyCheck } from '../../common/service/ready-checks'
import { ChainName } from '../registry'
import { HeadRead } from './monitor'

/** Past this many monitor intervals (and at least STALE_FLOOR_MS) without a head read, a network counts as not answering. */
const STALE_INTERVALS = 5
const STALE_FLOOR_MS = 60_000

/**
 * A network's part of the bridge's `GET /ready`: the deposit monitor's last head read of it
 * succeeded, recently (docs/operations.md#health-and-readiness). The probe asks no node itself.
 */
export function networkCheck(chain: ChainName, headReads: ReadonlyMap<ChainName, HeadRead>, monitorIntervalMs: number): ReadyCheck {
    const staleMs = Math.max(STALE_INTERVALS * monitorIntervalMs, STALE_FLOOR_MS)
    return async () => {
        const last = headReads.get(chain)
        if (!last) throw new Error('not read yet')
        if (last.error) throw new Error(last.error)
        const age = Date.now() - last.at.getTime()
        if (age > staleMs) throw new Error(`no head read for ${Math.round(age / 1000)} s`)
    }
}
