import { SCENARIOS } from '../../bench/reliability/scenarios'
import { describeReliability } from './reliability'

describeReliability([
    { title: 'the process', scenarios: SCENARIOS, ids: ['sigterm'], minChecks: 3 },
    // The node faults that used to end the process, and a stalled node (the request timeout).
    { title: 'node faults', scenarios: SCENARIOS, ids: ['rpc-rpc-error', 'rpc-stall', 'receipt-logs-twice'], minChecks: 2 },
])
