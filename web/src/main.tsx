import './styles.css';
import { start } from './client';

start();
