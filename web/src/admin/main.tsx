import './admin.css';
import { createRoot } from 'react-dom/client';
import { AdminRoot } from './App';

const container = document.getElementById('root');
if (container) createRoot(container).render(<AdminRoot />);
