use std::sync::Arc;

use tokio::process::Command;
use tokio::sync::Semaphore;

pub async fn fan_out(prompts: Vec<String>) -> anyhow::Result<Vec<String>> {
    let permits = Arc::new(Semaphore::new(4));
    let mut handles = Vec::new();
    for prompt in prompts {
        let permits = permits.clone();
        handles.push(tokio::spawn(async move {
            let _permit = permits.acquire_owned().await?;
            let out = Command::new("claude") // expect: agent-spawn-without-group
                .arg("-p")
                .arg(&prompt)
                .kill_on_drop(true)
                .output()
                .await?;
            anyhow::Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        }));
    }
    let mut results = Vec::new();
    for handle in handles {
        results.push(handle.await??);
    }
    Ok(results)
}

pub async fn fan_out_grouped(prompts: Vec<String>) -> anyhow::Result<()> {
    let mut set = tokio::task::JoinSet::new();
    for prompt in prompts {
        set.spawn(async move {
            Command::new("claude") // expect: agent-spawn-without-group
                .args(["-p", &prompt])
                .process_group(0)
                .status()
                .await
        });
    }
    while let Some(res) = set.join_next().await {
        res??;
    }
    Ok(())
}
