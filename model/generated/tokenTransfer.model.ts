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
     * the log's id
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
     * ERC-20 or ERC-721
     */
    @StringColumn_({nullable: false})
    tokenType!: string

    @StringColumn_({nullable: false})
    from!: string

    @StringColumn_({nullable: false})
    to!: string

    /**
     * ERC-20 amount in base units
     */
    @BigIntColumn_({nullable: true})
    value!: bigint | undefined | null

    /**
     * ERC-721 token id
     */
    @BigIntColumn_({nullable: true})
    tokenId!: bigint | undefined | null
}
