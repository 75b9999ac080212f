import 'reflect-metadata';
import './tracing';
import { runService } from '@corridor/messaging';
import { AppModule } from './app.module';
import { loadConfig } from './config';

const config = loadConfig();
void runService(AppModule.register(config), 'cards', config);
