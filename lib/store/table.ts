// The one table the product uses: string partition key pk, string sort key sk, on demand; with
// the stream the stream function reads (spec changes), where the server has streams.
import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  waitUntilTableExists,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';

export const DEFAULT_TABLE_NAME = 'shpa';

export interface TableOptions {
  /** A NEW_AND_OLD_IMAGES stream, as the deployed table has (DynamoDB Local; dynalite has none). */
  stream?: boolean;
}

/** Creates the table when it does not exist and waits until it is active. */
export async function ensureTable(client: DynamoDBClient, tableName: string, options: TableOptions = {}): Promise<'created' | 'exists'> {
  try {
    const d = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (d.Table?.TableStatus !== 'ACTIVE') await waitUntilTableExists({ client, maxWaitTime: 60 }, { TableName: tableName });
    return 'exists';
  } catch (e) {
    if (!(e instanceof ResourceNotFoundException)) throw e;
  }
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        ...(options.stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' as const } } : {}),
      }),
    );
  } catch (e) {
    // Someone else created it meanwhile.
    if (!(e instanceof ResourceInUseException)) throw e;
  }
  await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1 }, { TableName: tableName });
  return 'created';
}
