import * as fs from 'fs'
import * as path from 'path'
import { readStateFile, writeFileAtomic, writeStateFile } from '../state-file'
import { Ledger, SavedChain } from './ledger'

/**
 * The local Bitcoin chain on disk: blocks.hex holds one raw block per line, appended as blocks are
 * mined (a day of 5-second blocks is a few MB: rewriting it whole every block would not do);
 * state.json (replaced atomically) the mempool and the coinbase nonce. A line cut short by a crash
 * is dropped on load, its transactions resubmitted from the saved mempool.
 */
export class ChainStore {
    private readonly blocksFile: string
    private readonly stateFile: string
    /** The last block in blocks.hex. */
    private saved = { height: 0, hash: '' }

    constructor(dir: string) {
        fs.mkdirSync(dir, { recursive: true })
        this.blocksFile = path.join(dir, 'blocks.hex')
        this.stateFile = path.join(dir, 'state.json')
    }

    load(): SavedChain | undefined {
        const state = readStateFile<{ extraNonce: number; mempool: string[] }>(this.stateFile)
        if (!state || !fs.existsSync(this.blocksFile)) {
            // Blocks without their state are the start of a chain that never saved once: begin again.
            fs.rmSync(this.blocksFile, { force: true })
            return undefined
        }
        const text = fs.readFileSync(this.blocksFile, 'utf8')
        const complete = text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1)
        if (complete.length !== text.length) fs.writeFileSync(this.blocksFile, complete)
        const blocks = complete.split('\n').filter(Boolean)
        return { extraNonce: state.extraNonce, blocks, mempool: state.mempool }
    }

    /** After the ledger replayed what load() gave it. */
    loaded(ledger: Ledger): void {
        this.saved = { height: ledger.tipHeight, hash: ledger.tip.hash }
    }

    /** Appends the blocks mined since the last save and replaces the state; a chain whose saved blocks changed (a reorg) is written whole. */
    save(ledger: Ledger): void {
        if (ledger.blocks[this.saved.height]?.hash !== (this.saved.height === 0 ? ledger.blocks[0].hash : this.saved.hash)) {
            writeFileAtomic(this.blocksFile, ledger.save().blocks.map((b) => `${b}\n`).join(''))
        } else {
            const { blocks } = ledger.save(this.saved.height + 1)
            if (blocks.length > 0) fs.appendFileSync(this.blocksFile, blocks.map((b) => `${b}\n`).join(''))
        }
        this.saved = { height: ledger.tipHeight, hash: ledger.tip.hash }
        const { extraNonce, mempool } = ledger.save(ledger.tipHeight + 1)
        writeStateFile(this.stateFile, { extraNonce, mempool })
    }
}
