/** The YCSB binding: {@code KvlabDB} (a {@code site.ycsb.DB} for any kvlab protocol) and {@code KvlabWorkload}. */
package org.kvlab.ycsb;
