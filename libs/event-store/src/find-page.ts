import type { EntityManager, EntityName, FilterQuery } from '@mikro-orm/core';
import { decodeCursor, type Page, toPage } from '@corridor/contracts';

/**
 * Keyset paging over a read model ordered newest first by (createdAt, id). A row created while a
 * client pages sorts before the first page, so it can never shift a later page boundary.
 */
export const findPage = async <Row extends { id: string; createdAt: Date }, T>(
  em: EntityManager,
  entity: EntityName<Row>,
  where: FilterQuery<Row>,
  request: { limit: number; cursor?: string },
  render: (row: Row) => T,
): Promise<Page<T>> => {
  const after = request.cursor ? decodeCursor(request.cursor) : undefined;
  const keyset = after
    ? ({
        $or: [{ createdAt: { $lt: new Date(after.createdAt) } }, { createdAt: new Date(after.createdAt), id: { $lt: after.id } }],
      } as FilterQuery<Row>)
    : undefined;
  const [rows, totalCount] = await Promise.all([
    em.find(entity, keyset ? ({ $and: [where, keyset] } as FilterQuery<Row>) : where, {
      orderBy: { createdAt: 'desc', id: 'desc' } as never,
      limit: request.limit + 1,
    }),
    em.count(entity, where),
  ]);
  return toPage(rows as Row[], request.limit, totalCount, render);
};

/** An inclusive time filter on createdAt or updatedAt, as the list endpoints take it (createdAfter…). */
export const timeRange = (field: 'createdAt' | 'updatedAt', after?: string, before?: string): Record<string, unknown> =>
  after || before ? { [field]: { ...(after ? { $gte: new Date(after) } : {}), ...(before ? { $lte: new Date(before) } : {}) } } : {};
