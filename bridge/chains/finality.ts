import type { Finality } from '../../common/sending/chain'

export type { Finality }

export function describeFinality(f: Finality): string {
    return 'tag' in f ? f.tag : `${f.confirmations} confirmation${f.confirmations === 1 ? '' : 's'}`
}
