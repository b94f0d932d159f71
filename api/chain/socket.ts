import * as http from 'http'
import { ApiContext } from '../context'

export class ChainSocket {
    constructor(private ctx: ApiContext) {}
    async attach(_server: http.Server, _path: string): Promise<void> {}
    async close(): Promise<void> {}
}
