import * as path from 'path'
import { dataDir } from '../common/config'
import { Logger } from '../common/logger'
import { DevnetEnv } from './config'
import { readStateFile, writeStateFile } from './state-file'

/**
 * An in-process local network as `npm start` runs it (docs/bridge/README.md#local-chains-npm-start):
 * its state kept in DATA_DIR/<name>/state.json, a step (a block, a slot) on a timer, the state
 * saved after a step that changed it, at least every 30 s, and on stop.
 */

/** Steps that change nothing are saved at most this often. */
const SAVE_EVERY_MS = 30_000

export interface InProcessNetwork<Node> {
    url: string
    node: Node
    /** Stops the timer and the server, then saves the state a last time. */
    stop(): Promise<void>
}

export async function startInProcessNetwork<State, Node extends { url: string; close(): Promise<void> }>(env: DevnetEnv, options: {
    /** Directory under DATA_DIR */
    name: string
    /** The network, continuing `saved` when there is a saved state. */
    start(saved: State | undefined): Promise<Node>
    exportState(node: Node): State
    /** One block or slot; true when it changed what is saved (transactions). */
    step(node: Node): boolean
    intervalMs: number
    log: Logger
}): Promise<InProcessNetwork<Node>> {
    const file = path.join(dataDir(env), options.name, 'state.json')
    const node = await options.start(readStateFile<State>(file))
    let savedAt = 0
    const save = () => {
        writeStateFile(file, options.exportState(node))
        savedAt = Date.now()
    }
    const tick = () => {
        try {
            if (options.step(node) || Date.now() - savedAt >= SAVE_EVERY_MS) save()
        } catch (err) {
            options.log.error({ err, network: options.name }, 'local network: could not step or save')
        }
    }
    tick()
    const timer = setInterval(tick, options.intervalMs)
    return {
        url: node.url,
        node,
        stop: async () => {
            clearInterval(timer)
            await node.close()
            save()
        },
    }
}
