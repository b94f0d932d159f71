import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, Index as Index_, IntColumn as IntColumn_, StringColumn as StringColumn_, DateTimeColumn as DateTimeColumn_, BigIntColumn as BigIntColumn_} from "@subsquid/typeorm-store"

@Index_(["token", "blockNumber", "logIndex"], {unique: false})
@Index_(["from", "blockNumber", "logIndex"], {unique: false})
@Index_(["to", "blockNumber", "logIndex"], {unique: false})
@Entity_()
export class TokenTransfer {
    constructor(props?: Partial<TokenTransfer>) {
        Object.assign(this, props)
    }

    /**
     * the log's id; for an ERC-1155 TransferBatch, the log's id and the position in the batch (db/row-ids.ts)
     */
    @PrimaryColumn_()
    id!: string

    @IntColumn_({nullable: false})
    blockNumber!: number

    @StringColumn_({nullable: false})
    blockHash!: string

    @DateTimeColumn_({nullable: false})
    timestamp!: Date

    @IntColumn_({nullable: false})
    logIndex!: number

    @StringColumn_({nullable: false})
    transactionHash!: string

    @StringColumn_({nullable: false})
    token!: string

    /**
     * ERC-20, ERC-721 or ERC-1155
     */
    @StringColumn_({nullable: false})
    tokenType!: string

    @StringColumn_({nullable: false})
    from!: string

    @StringColumn_({nullable: false})
    to!: string

    /**
     * ERC-20 amount in base units; ERC-1155 amount of the token id
     */
    @BigIntColumn_({nullable: true})
    value!: bigint | undefined | null

    /**
     * ERC-721 or ERC-1155 token id
     */
    @BigIntColumn_({nullable: true})
    tokenId!: bigint | undefined | null

    /**
     * position of the id in its ERC-1155 TransferBatch log (a batch is one row per id); null for every other transfer
     */
    @IntColumn_({nullable: true})
    batchIndex!: number | undefined | null
}
