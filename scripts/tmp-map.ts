import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { AppModule } from '../apps/gateway/src/app.module';
import { loadConfig } from '../apps/gateway/src/config';
import { RouteTable } from '../apps/gateway/src/http/route-table';
import { createLogger } from '@corridor/messaging';
(async () => {
  const ref = parse(readFileSync('reference/grid-openapi.yaml', 'utf8'), { maxAliasCount: -1 });
  const norm = (p: string) => p.replace(/\{[^}]+\}/g, '{}');
  const refOps = new Map<string, string>();
  for (const [p, item] of Object.entries<any>(ref.paths)) for (const [m, o] of Object.entries<any>(item)) if (o.operationId) refOps.set(`${m} ${norm(p)}`, `${o.operationId} ${p} ${Object.keys(o.responses).filter(s=>s<'300').join(',')}`);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.register(loadConfig({}), { routes: new RouteTable(), logger: createLogger('x', {level:'silent'}) }), new FastifyAdapter(), { preview: true, logger: false });
  app.setGlobalPrefix('2025-10-13');
  const doc = SwaggerModule.createDocument(app, new DocumentBuilder().build(), { ignoreGlobalPrefix: true });
  for (const [p, item] of Object.entries<any>(doc.paths)) for (const [m, o] of Object.entries<any>(item)) {
    const r = refOps.get(`${m} ${norm(p)}`); refOps.delete(`${m} ${norm(p)}`);
    console.log(`${o.operationId}\t${m} ${p}\t${Object.keys(o.responses).join(',')}\t${r ?? 'NONE'}`);
  }
  console.log('UNMATCHED REF', [...refOps.entries()]);
  await app.close();
})();
