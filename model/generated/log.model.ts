import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, Index as Index_, IntColumn as IntColumn_, StringColumn as StringColumn_, BytesColumn as BytesColumn_} from "@subsquid/typeorm-store"

@Index_(["address", "blockNumber", "index"], {unique: false})
@Entity_()
export class Log {
    constructor(props?: Partial<Log>) {
        Object.assign(this, props)
    }

    /**
     * zero-padded block number and log index
     */
    @PrimaryColumn_()
    id!: string

    @IntColumn_({nullable: false})
    blockNumber!: number

    @StringColumn_({nullable: false})
    blockHash!: string

    /**
     * log index within the block
     */
    @IntColumn_({nullable: false})
    index!: number

    @StringColumn_({nullable: false})
    transactionHash!: string

    @IntColumn_({nullable: false})
    transactionIndex!: number

    @StringColumn_({nullable: false})
    address!: string

    @StringColumn_({nullable: true})
    topic0!: string | undefined | null

    @StringColumn_({nullable: true})
    topic1!: string | undefined | null

    @StringColumn_({nullable: true})
    topic2!: string | undefined | null

    @StringColumn_({nullable: true})
    topic3!: string | undefined | null

    @BytesColumn_({nullable: false})
    data!: Uint8Array
}
