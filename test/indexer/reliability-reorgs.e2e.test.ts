import { REORG_SCENARIOS } from '../../bench/reliability/reorg-scenarios'
import { describeReliability } from './reliability'

describeReliability([
    {
        title: 'reorganisations',
        scenarios: REORG_SCENARIOS,
        ids: ['reorg-values', 'reorg-removes', 'reorg-deep', 'reorg-while-down', 'reorg-while-down-deep', 'reorg-thrice', 'reorg-backfill', 'reorg-hash-vanishes'],
        minChecks: 3,
    },
])
