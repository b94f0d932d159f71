import { ECPairInterface } from 'ecpair'
import { parseAddress } from '../../bridge/chains/bitcoin/address'
import { EsploraBackend } from '../../bridge/chains/bitcoin/esplora'
import { NETWORKS } from '../../bridge/chains/bitcoin/network'
import { planPayment } from '../../bridge/chains/bitcoin/selection'
import { signSpend } from '../../bridge/chains/bitcoin/transaction'
import { regtestAddress } from './keys'

/** A one-key P2WPKH wallet on the local Bitcoin network, over its Esplora API as any wallet would use it: the CLI's sender and the provider's payouts. */

const REGTEST = NETWORKS.regtest
/** sat/kvB when the network gives no estimate for a 3-block target. */
const FALLBACK_FEE_RATE = 2_000n

/** Pays `sats` to `to` from `key`'s coins, change back to it; the txid once the network accepted it. */
export async function payBitcoin(esploraUrl: string, key: ECPairInterface, to: string, sats: bigint): Promise<string> {
    const recipient = parseAddress(to, REGTEST)
    if (!recipient) throw new Error(`"${to}" is not an address of the local Bitcoin network (regtest: bcrt1…)`)
    const own = parseAddress(regtestAddress(key), REGTEST)!
    const esplora = new EsploraBackend(esploraUrl)
    const [utxos, tip, estimates] = await Promise.all([esplora.addressUtxos(own.address), esplora.tip(), esplora.feeEstimates()])
    const rate = [...estimates].filter(([target]) => target <= 3).sort(([a], [b]) => b - a)[0]?.[1] ?? FALLBACK_FEE_RATE
    const coins = utxos.map((u) => ({
        txid: u.txid, vout: u.vout, value: u.value,
        confirmations: u.status.confirmed && u.status.blockHeight !== undefined ? tip.height - u.status.blockHeight + 1 : 0,
    }))
    const plan = planPayment({ coins, to: recipient, amount: sats, change: own, rate })
    const signed = signSpend(plan, { publicKey: key.publicKey, sign: (hash) => key.sign(hash, true) })
    return esplora.broadcast(signed.raw)
}
