/**
 * The DataSource the TypeORM CLI uses (`npm run typeorm -- migration:show`, `migration:run`, ...). It reads
 * the same environment as the service (DATABASE_URL, TOOLCAT_SQLITE_PATH), through the same config loader.
 */
import 'reflect-metadata';
import { loadConfig } from './src/config/config';
import { createDataSource } from './src/persistence/data-source';

export default createDataSource(loadConfig(process.env).db);
