import { MikroORM, PostgreSqlDriver } from '@mikro-orm/postgresql';
import { Pool } from 'pg';
import { ensureEventStoreSchema, migrate, ormProjectionSql, type Projection, type ProjectionSql } from '@corridor/event-store';
import { createTestDatabase, type TestDatabase } from './infra';

// The bug class behind the accounts stall: a plain-SQL projection (`rows`) ran inside a MikroORM
// transaction, whose connection returns timestamps as strings, and its save called toISOString on
// what its load had returned. Every `rows` projection passes this contract: on a row of its table,
// `load` returns the same values on a plain pool connection and inside a MikroORM transaction, and
// `save` of what `load` returned succeeds on both and leaves the row as it was.

type Column = { column_name: string; data_type: string };

/** A value of each column type a read model uses; the contract is about mapping, not meaning. */
const sampleValue = (column: Column, index: number): unknown => {
  switch (column.data_type) {
    case 'timestamp with time zone':
    case 'timestamp without time zone':
      return new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678 + index));
    case 'date':
      return '2026-01-02';
    case 'bigint':
      return String(1_000_000_000_000 + index);
    case 'integer':
    case 'smallint':
      return index + 1;
    case 'numeric':
      return '12.5';
    case 'boolean':
      return index % 2 === 0;
    case 'jsonb':
    case 'json':
      return JSON.stringify({ sample: column.column_name });
    case 'ARRAY':
      return [];
    case 'uuid':
      return '0196f1a0-0000-7000-8000-00000000000' + (index % 10);
    default:
      return `${column.column_name}-sample`;
  }
};

export type ProjectionRowsContractOptions = { schema: string; migrationsDirectory: string; projections: Projection<any>[] };

/** Registers one jest test per `rows` projection. Call at the top level of a describe. */
export const projectionRowsContract = (options: ProjectionRowsContractOptions): void => {
  let database: TestDatabase;
  let pool: Pool;
  let orm: MikroORM;

  beforeAll(async () => {
    database = await createTestDatabase();
    // As a service starts: the store's tables first, since a migration may index the events table.
    await ensureEventStoreSchema(database.url, options.schema);
    await migrate({ connectionString: database.url, schema: options.schema, directory: options.migrationsDirectory });
    pool = new Pool({ connectionString: database.url, max: 2 });
    orm = await MikroORM.init({
      driver: PostgreSqlDriver,
      clientUrl: database.url,
      schema: options.schema,
      entities: options.projections.map((projection) => projection.entity),
      discovery: { warnWhenNoEntities: false },
      allowGlobalContext: false,
      pool: { min: 0, max: 1 },
    });
  });

  afterAll(async () => {
    await orm?.close(true);
    await pool?.end();
    await database?.drop();
  });

  const onPlainPool = async <T>(work: (sql: ProjectionSql) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work({ schema: options.schema, query: async (text, values) => (await client.query(text, values)).rows });
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  };
  const inOrmTransaction = <T>(work: (sql: ProjectionSql) => Promise<T>): Promise<T> =>
    orm.em.fork().transactional(async (em) => work(await ormProjectionSql(em, options.schema)));

  for (const projection of options.projections.filter((candidate) => candidate.rows)) {
    it(`${projection.name}: load and save map rows the same on a plain connection and inside a MikroORM transaction`, async () => {
      const table = String(projection.entity.meta.collection ?? projection.entity.meta.tableName);
      const columns = (
        await pool.query<Column>(
          `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2
           ORDER BY ordinal_position`,
          [options.schema, table],
        )
      ).rows;
      expect(columns.length).toBeGreaterThan(0);
      const key = (
        await pool.query<{ column_name: string }>(
          `SELECT kcu.column_name FROM information_schema.table_constraints tc
           JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema
           WHERE tc.table_schema = $1 AND tc.table_name = $2 AND tc.constraint_type = 'PRIMARY KEY'`,
          [options.schema, table],
        )
      ).rows[0]!.column_name;
      const values = columns.map((column, index) => sampleValue(column, index));
      const keyValue = String(values[columns.findIndex((column) => column.column_name === key)]);
      await pool.query(
        `INSERT INTO ${options.schema}.${table} (${columns.map((column) => `"${column.column_name}"`).join(', ')})
         VALUES (${columns.map((_, index) => `$${index + 1}`).join(', ')})`,
        values,
      );
      const rowOf = async (): Promise<unknown> =>
        (await pool.query(`SELECT * FROM ${options.schema}.${table} WHERE "${key}" = $1`, [keyValue])).rows[0];
      const stored = await rowOf();

      const plain = await onPlainPool((sql) => projection.rows!.load(sql, [keyValue]));
      const inOrm = await inOrmTransaction((sql) => projection.rows!.load(sql, [keyValue]));
      expect(plain.size).toBe(1);
      expect(inOrm).toEqual(plain);

      // A batch folds events onto what load returned and saves it: the loaded row must save as it is.
      await inOrmTransaction((sql) => projection.rows!.save(sql, { upserts: [...inOrm.values()], deletes: [], previous: inOrm }));
      expect(await rowOf()).toEqual(stored);
      await onPlainPool((sql) => projection.rows!.save(sql, { upserts: [...plain.values()], deletes: [], previous: plain }));
      expect(await rowOf()).toEqual(stored);
    });
  }
};
